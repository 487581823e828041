// Package swarm is the command-line interface: one file per command (ls.go, spawn.go,
// kill.go, the ralph_*.go of the `swarm ralph` group, ...). Main and Run are the entry points
// (cmd/swarm's main calls Main); Run takes its arguments and output streams, so a whole
// command line runs in a test as a function.
//
// The worker lifecycle the commands share is swarm/worker's: every command's env (env.go)
// holds a worker.Machine, the opened state directory, swarm's private tmux server and the process
// table, and calls it to spawn, stop, clean, respawn and reconcile workers. What stays here is
// what only a command has: flags, the words a status is said in (state_words.go), what a
// command prints, and the exit codes, which are a contract (errors.go maps the lifecycle's
// errors onto them).
//
// Loops are ralph's (package ralph); this package reads the flags that start and change them,
// and says what became of them. Their life from outside their driver is swarm/loop's: starting
// a loop with its first iteration, making room for it, pausing, resuming and killing it
// (loop.Loops: Begin, MakeRoom, Pause, Resume, Kill). The Regent, one process
// per state directory run by a keeper in a window tmux revives, drives every supervised loop
// and sends every active heartbeat (the heartbeat commands change the schedules in
// swarm/heartbeat, then start or wake it), and a loop without it, or run in the foreground, has
// a monitor of its own that drives it the same way. What stays here is the command line over
// it: `swarm regent status|logs|restart` (regent.go, and regent_display.go for how its lines
// show), the hidden `regent __serve` and `regent __keep` that only call into its daemon
// (swarm/regent/daemon) and `ralph __monitor` that calls into swarm/loop, a foreground loop's face (ralph_monitor.go, ralph_progress.go) and its exit
// code.
//
// Other machines: a command line that names a worker on a host (NAME@HOST, or --host) is
// run by that host's swarm over SSH, its output and exit code passed through
// (remote_route.go, remote_run.go); spawn and agent send a bundle to the host's hidden
// `host __spawn` (remote_spawn.go, remote_files.go); ls and the dashboard ask every host at
// once (fleet.go, dashboard_fleet.go). swarm/remote holds the hosts, the connection and
// what travels; the host side is the hidden `host __hello|__run|__spawn|__put|__rows`
// (host_side.go).
//
// The layering: this package is the top layer, with only cmd/swarm above it; no lower layer
// (state, tmux, ralph and its helpers, templates) may import it or its helpers under swarm/;
// it is also the only package that uses the CLI library. Its helpers keep what need not know
// the command line: swarm/dashboard (whose data comes through dashboard_data.go, since the
// dashboard does not import the commands), swarm/guide, swarm/heartbeat,
// swarm/regent (and its daemon), swarm/loop, swarm/worker and swarm/demoagent. Like everybody else it runs tmux only
// through package tmux and git only through ralph/git. cmd/swarm's layering test checks all
// of this against the import graph.
package swarm
