// Package ralph is the loop: one worker's agent started afresh on the same prompt, iteration
// after iteration, until its work is verified done, a limit is reached or a person stops it.
// Every loop is driven through Loop (New, then Run). The Regent (package swarm/regent), one
// process per state directory, drives each of its supervised loops in a goroutine of its own;
// a loop without it, or run in the foreground, has a monitor process that does the same.
//
// One iteration, as state.json records its Phase. Loop.step takes up whatever phase it finds,
// so a monitor that dies is followed by one that neither starts the agent twice nor pastes
// the prompt twice:
//
//	ended --start--> starting --staged--> delivering --pasted--> submitting --taken--> working
//	 ^ ^ ^              |                                                                 |
//	 | | |              | it exits, or never shows                            an Ending   |
//	 | | |              | its input prompt (EndReadyTimeout)                              |
//	 | | |              +----------------------------> end <------------------------------+
//	 | | |                                             |  NextEndStep, then AfterRun
//	 | | +------------- next iteration ----------------+
//	 | +---- wait over ---- backoff <---- failed ------+
//	 +------ reset -------- waiting <---- usage limit -+
//	                                                   +--> loop over (stopped, failed)
//
// Between iterations BeforeIteration says whether another may start (the iteration limit,
// the DONE and WAIT_WITHOUT_RESTART files). In stdin mode the prompt goes in with the agent
// and starting leads straight to working. A pause lets the iteration under way finish.
//
// Every iteration starts through Starter.Start (iteration_start.go), in one order: prompt
// copy, pre-iteration hooks, agent launch, loop state, records. Iteration 1 starts in the
// spawn that creates the worker (its window is up when spawn returns), every later one in
// the driver (Loop.start); a Pane says how each makes the agent's pane and writes the state.
//
// An Ending says what ended the iteration: the agent exited (EndExited) or never showed its
// input prompt (EndReadyTimeout); its screen went quiet or made no progress (EndInactive,
// EndHung) or it ran out of time (EndIterationTimeout); it printed the done marker or made
// the DONE file (EndDoneMarker, EndDoneFile); its context filled or it began compacting
// (EndContextLimit, EndCompaction); the loop's budget was spent (EndBudget); it gave up on
// its API or hit its usage limit (EndAPIError, EndUsageLimit); or its own signal said its
// turn ended without the marker (EndTurnEnded). Every one goes through Loop.end, so the
// same rules judge them all, in one order (iteration_end.go):
//
//	done claim -> test gate -> rollback -> checks -> verdict
//
// The claim (SignalsOf) is read first and judged last. NextEndStep has the driver run the
// test gate on an iteration that made commits (Gate: commits that break a suite which passed
// before are reverted; a test command that cannot run, or a revert that fails, stops the
// loop), then the checkers on a claim that still stands. AfterRun gives the verdict: done, a
// claim voided by the rollback or refuted by the checkers, a stop rule, the next iteration, a
// backoff, a wait for the usage limit, or giving up. The test command, the checkers and the
// hooks run under the loop's context (Config.Context): a loop stopped meanwhile ends them at
// once with their process groups, and tests or checkers cut short count as not tested, never
// as passed or failed (no rollback, no completion, no failure counted).
//
// The policy is pure: functions of observed facts and the state that return a Decision, with
// no tmux, processes, files or clock inside, so the tests can take every case through it.
// It lives in policy.go (the types), decide.go, iteration_end.go, supervision_policy.go (quiet,
// hung, out of time, the test gate, crash loops), control.go (pause, resume, kill),
// limits.go, context_policy.go, stagnation.go, budget.go, signals.go (OnSignal),
// notify_policy.go, chain.go (StepEnded) and agentmode.go (AfterStage). The driver is Loop
// and loop_*.go: it gathers the facts, asks the policy and carries the decision out;
// Dir.Apply records a decision's state and log events in one step, under the loop lock.
// The driver's features (notifications, cost, usage limits, the agents' signals, chains,
// agent mode: feature_*.go) are types of their own, each with its state, called at the
// points of the loop's life they need (features.go), so that a feature is added without
// adding to Loop.
//
// The layering: ralph stands under the CLI and must not import swarm/... (cmd/swarm's
// layering test checks the import graph), so what it needs from above comes in through
// Config: the tmux.Client, the processes (Procs), the Clock, where its output goes. It runs
// tmux only through package tmux and git only through ralph/git; it reads screens with
// ralph/screen, costs with ralph/cost, the configuration files with ralph/config (which
// stands below it: the loop merges their tables with its defaults and the flags) and the
// spec queue with ralph/inbox, and keeps its files
// under $SWARM_DIR/ralph/<name>/ (Dir, State) with package state's atomic writes and locks.
package ralph
