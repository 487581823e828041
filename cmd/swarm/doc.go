// Command swarm runs AI coding agents as named workers in tmux and keeps them looping.
//
// This is the entry point and nothing more: main hands the process to swarm.Main and exits
// with its code. Everything swarm does lives in package swarm and the layers under it, so
// that the command line can be run (and tested) as a function, and so that the only code
// here is what must be a program.
//
// Its tests are the suites that need swarm as users get it, a program of its own on a real
// machine. Each installation they make has its own state directory, HOME and tmux server,
// so none touches the user's ~/.swarm, home or tmux server:
//
//   - The scenario suite (TestScripts, main_test.go) runs the scripts in the module's
//     testdata/script/AREA/*.txtar (one folder per area: loop, worker, hosts, land, ...) with
//     testscript. Every swarm a script runs is a process of its own
//     running the real command line (TestMain turns the test binary into the swarm program),
//     against a real tmux server private to the script, with its own SWARM_DIR, HOME and
//     TMUX_TMPDIR; the demo agent stands in for the agents (fakeagent, and claude and codex
//     playing their signals). A script that leaves a process running fails. Scripts that
//     need root ([mount], [seconduser]) say so and are skipped elsewhere. One script runs
//     with go test -run 'TestScripts/NAME$' ./cmd/swarm/, whatever its area: names are
//     unique across areas. Programs run only through exec, and every custom command either
//     gives ! a meaning its comment states or refuses it (negation_test.go).
//   - The benchmarks (bench_*_test.go, make bench) time the shipped binary, built as make
//     build builds it, since what a user waits for includes its start-up: ls, spawn and kill,
//     what idle loops cost in CPU and memory, how fast a loop reacts to a done marker, a
//     quiet agent or an agent's Stop signal, and what a flooding pane costs. SWARM_BENCH_WINDOW,
//     SWARM_BENCH_QUIET and SWARM_BENCH_FLOOD shorten the long ones.
//   - The end-to-end suite (e2e_*_test.go, TestE2E*) runs real agents: Claude Code, Codex,
//     Gemini CLI and opencode, installed from npm at pinned versions into a cache, talking to
//     a fake model API on loopback (internal/fakeapi). It is skipped unless SWARM_E2E=1
//     (make e2e; make e2e-latest runs today's releases instead of the pinned ones).
//   - The layering test (layering_test.go) holds the packages to their layers: state at the
//     bottom, then tmux, then ralph/screen and ralph/cost, the loop (ralph, with ralph/git and
//     ralph/inbox), the CLI (swarm and swarm/...), and this entry point; the dashboard and the
//     guides do not import the commands; only tmux runs tmux and only ralph/git runs git.
package main
