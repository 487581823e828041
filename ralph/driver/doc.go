// Package driver drives a loop: it starts each iteration's agent in the worker's tmux pane,
// delivers the prompt, watches the agent (its process, its screen, its own signals, the loop's
// files), ends it, and carries out what the loop's policy (package ralph) decides at every
// step. A loop is driven through Loop (New, then Run). The Regent (package
// swarm/regent/daemon), one process per state directory, drives each of its supervised loops
// in a goroutine of its own; a loop without it, or run in the foreground, has a monitor
// process that does the same (both through swarm/loop).
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
// Every Ending goes through endOfIteration.end (phase_end.go), whichever phase saw it, so
// the same rules judge them all, in the order of ralph's iteration_end.go: the agent is ended
// and its screen saved, the features fill in the iteration's record (its cost, the API error
// or usage limit that ended it), the steps NextEndStep asks for run (the test gate, then the
// checkers), AfterRun gives the verdict, and the iteration is recorded before the
// post-iteration hooks run. The test command, the
// checkers and the hooks run under the loop's context (Config.Context): a loop stopped
// meanwhile ends them at once with their process groups.
//
// Loop is the conductor: Run, the order of the phases (Loop.step) and the transition that
// carries a decision out. The phases are types of their own, each holding its own state and
// reaching the rest of the loop through a short interface of what it needs (its ...Needs): the
// delivery of the prompt (promptDelivery, phase_deliver.go; its waits for the input prompt,
// phase_deliver_wait.go; its paste and Enter, and the looks that make sure the agent took it,
// phase_submit.go), the watch of a working agent (agentWatch, phase_watch*.go, with the pane's
// feed, phase_feed.go, and its floods, phase_flood.go), the end of an iteration and its record
// (endOfIteration, phase_end*.go), the tmux server's silences (outage, phase_outage.go) and
// what the loop says and records, with the writes a full disk refused (recorder,
// phase_record.go, phase_unlogged.go). They share the agent as seen through tmux (agentView,
// agent_view.go) and the pane's shell (paneShell, pane_shell_start.go). A phase is thus read,
// changed and tested on its own, and what it may do to the loop is its interface, not the
// whole of Loop.
//
// The driver's features are small types plugged into points of the loop's life
// (features.go), rather than methods and fields of Loop: notifications, the API-error watch,
// usage limits, the agents' own signals, the iteration's time limit, cost, the test gate, the
// checkers, the user's hooks, chains and agent mode (feature_*.go). Each keeps its own state
// and implements only the points it needs; at each point the driver calls the features in
// the order New lists them, which is what decides, of two endings seen at the same look,
// which wins, and which lines come first. Hooks rather than calls spelled out in the driver's
// steps keep those steps short and the same for every loop: a feature is added as a type
// and a place in the list, not as more of Loop. The features reach the driver only through
// the services it gives them (services.go: say and record, update the state, end the
// iteration, look at the agent's screen ...), so a feature's tests can stand in a small fake.
//
// The layering: the driver stands on the loop's domain (package ralph: the state, the loop's
// directory, the pure policy), which stands on no tmux, no processes and no network; the facts
// a decision needs are gathered here and passed in. The driver stands under the CLI and must
// not import swarm/... (cmd/swarm's layering test checks the import graph), so what it needs
// from above comes in through Config: the tmux.Client, the processes (Procs), the Clock,
// where its output goes. It runs tmux only through package tmux and git only through
// ralph/git.
package driver
