// Package ralph is the loop: one worker's agent started afresh on the same prompt, iteration
// after iteration, until its work is verified done, a limit is reached or a person stops it.
// This package is the loop's domain: its state and the directory that holds it (State, Dir,
// whose Apply records a decision's state and log events in one step, under the loop lock),
// its pure policy, its markers, supervision, notify and stop rules, and its summaries. Loops
// are driven by package ralph/driver, which gathers the facts, asks the policy here and
// carries the decision out.
//
// A loop's iterations, one after another, as state.json records each one's Phase (ended,
// starting, delivering, submitting, working, backoff, waiting); the driver (ralph/driver)
// draws their lifecycle and carries it out. Between iterations BeforeIteration says whether
// another may start (the iteration limit, the DONE and WAIT_WITHOUT_RESTART files).
//
// An Ending says what ended the iteration: the agent exited (EndExited) or never showed its
// input prompt (EndReadyTimeout); its screen went quiet or made no progress (EndInactive,
// EndHung) or it ran out of time (EndIterationTimeout); it printed the done marker or made
// the DONE file (EndDoneMarker, EndDoneFile); its context filled or it began compacting
// (EndContextLimit, EndCompaction); the loop's budget was spent (EndBudget); it gave up on
// its API or hit its usage limit (EndAPIError, EndUsageLimit); or its own signal said its
// turn ended without the marker (EndTurnEnded). The same rules judge them all, in one order
// (iteration_end.go):
//
//	done claim -> test gate -> rollback -> checks -> verdict
//
// The claim (SignalsOf) is read first and judged last. NextEndStep has the driver run the
// test gate on an iteration that made commits (Gate: commits that break a suite which passed
// before are reverted; a test command that cannot run, or a revert that fails, stops the
// loop), then the checkers on a claim that still stands. AfterRun gives the verdict: done, a
// claim voided by the rollback or refuted by the checkers, a stop rule, the next iteration, a
// backoff, a wait for the usage limit, or giving up. The test command, the checkers and the
// hooks run under the loop's context (the driver's Config.Context): a loop stopped meanwhile ends them at
// once with their process groups, and tests or checkers cut short count as not tested, never
// as passed or failed (no rollback, no completion, no failure counted).
//
// The policy is pure: functions of observed facts and the state that return a Decision, with
// no tmux, processes, network or clock inside, so the tests can take every case through it;
// where a decision needs a fact only the driver can gather (a screen, a process, a commit),
// the driver passes it in. It lives in policy.go (the types), decide.go, iteration_end.go,
// supervision_policy.go (quiet, hung, out of time, the test gate, crash loops), control.go
// (pause, resume, kill), limits.go, context_policy.go, submit_policy.go (AfterEnter: whether
// the agent took its prompt, or Enter is pressed again), stagnation.go, budget.go,
// ready_policy.go (ReadyLookWait: how often a screen without its input prompt is looked at),
// signals.go (OnSignal) with signals_tie.go (Untied: which agent an event is from),
// notify_policy.go, chain.go (StepEnded), agentmode.go (AfterStage) and agentmode_shared.go (AfterClaimPush,
// what the shared remote's answer to a claim's push means).
//
// The layering: ralph imports no tmux, no os/exec, no net/http and not its driver, and
// nothing under swarm/ (cmd/swarm's layering test checks the import graph). It runs git only
// through ralph/git; it reads screens with ralph/screen, costs with ralph/cost, the
// configuration files with ralph/config (the loop merges their tables with its defaults and
// the flags) and the spec queue with ralph/inbox, and keeps its files under
// $SWARM_DIR/ralph/<name>/ (Dir, State) with package state's atomic writes and locks.
package ralph
