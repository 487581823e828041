// Package tmuxtest stands in for tmux in tests, at the two levels swarm talks to it.
//
// Fake is an in-memory tmux.Client, for code that uses tmux (the loop, the commands): panes
// that hold a screen and scrollback, record what is pasted and typed into them, and run a
// scripted "agent" instead of a program. The hooks OnStart, OnPaste and OnKeys draw what the
// agent shows when it starts and how it answers its input; Exit, KillPID and Alive play its
// process. Pane IDs and PIDs only ever grow, so a PID is never reused within a test.
// With it a test drives a loop's iterations with no tmux installed and no process started.
//
// Stub is a tmux.Runner, for code that speaks tmux (package tmux itself): every tmux call a
// test makes through tmux.Exec must be the next one registered (Expect, ExpectMatch), argv
// and standard input exactly, and gets the answer registered with it (Prints, Fails); a call
// registered but never made fails the test when it ends. That pins the syntax down where a
// fake would let any command line through.
//
// Neither replaces the real server where that is the point: the scenario suite and the tmux
// package's own tests against a real tmux show what a server really does. Like tmux, this
// package stands on no other package of the module but tmux, and it is for tests only.
package tmuxtest
