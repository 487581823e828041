// Package demoagent is a small stand-in for an AI coding agent: it shows an input prompt like
// Claude Code's, takes typed or pasted messages (or a whole message on a non-terminal stdin),
// and acts on directive lines in them. swarm uses it for its demo and its tests, so both run
// without any agent CLI or network: a loop's whole life (prompts delivered, screens that go
// quiet, hang or flood, exits, leftover processes) can be played on purpose and on time.
//
// Directives (one per line, anywhere in a message; other lines are ignored like prose):
//
//	@say TEXT      print TEXT ($VARS expanded)
//	@work SECONDS  show a spinner for that long, then continue
//	@exit CODE     exit with CODE
//	@hang          stop responding (no output, no exit)
//	@spin          animate a spinner and a ticking counter forever (a hung API, as agents show it)
//	@stream        print a new line every 100ms forever
//	@flood RATE [SECONDS]  print lines at RATE bytes a second (1m: a megabyte; 0: unthrottled;
//	               yes: run yes(1)) for SECONDS, or forever
//	@touch PATH    create a file
//	@fork N        start N grandchild processes that sleep until killed
//	@sh CMD        run CMD with /bin/sh -c and show its output
//	@stamp PATH    append the time (seconds.nanoseconds since the epoch, as date +%s.%N) to PATH
//
// With --stamp PATH it appends the time it started to PATH, the same way (benchmarks time
// restarts with it, without a process of their own per stamp).
//
// With --ignore-enters N the Enter of the first N messages is missed, as a busy TUI can miss
// it: nothing changes on screen until Enter comes again; with --show-missed too, the message
// then shows up on the input line, as on a TUI that drew a paste late and took the Enter
// after it for a newline in it (the screen changes, yet nothing was submitted).
//
// Other flags shape it the way real agents differ: --prompt and --banner what it draws,
// --start-delay a slow start, --dialog a first-run dialog to answer before the prompt, --exit
// an agent that ends at once, --ignore-term one that ignores SIGTERM and SIGHUP, --record a
// file that keeps every message exactly as received, --no-echo a TUI that shows nothing of
// what was submitted.
//
// With --like claude or --like codex first it also plays that agent's own signals
// (signals.go): it takes the agent's flags for them and runs the hooks or notify program at
// the agent's moments, so the loop's use of the signals is tested without the real agent.
//
// Entry point: Main, which returns the exit code instead of exiting. swarm runs it as
// `swarm demo-agent` (swarm.Run calls it before building the command line, since a loop
// starts it once per iteration), and the scenario suite as its fakeagent, claude and codex
// commands. It imports no other package of the module: it stands in for a program swarm
// does not control, and must know no more of swarm than a real agent does.
package demoagent
