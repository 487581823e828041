// Package swarm is the command-line interface: one file per command (ls.go, spawn.go,
// kill.go, the ralph_*.go of the `swarm ralph` group, ...), plus the worker lifecycle those
// commands share. Main and Run are the entry points (cmd/swarm's main calls Main); Run takes
// its arguments and output streams, so a whole command line runs in a test as a function.
//
// What every command shares: env (env.go), the opened state directory and swarm's private
// tmux server; spawnWorker and stopWorker, which start a worker in a tmux pane or as a
// detached process group and end its whole group; and reconcile (workers.go), which tells a
// worker's status as it is now from tmux and /proc rather than trusting its record (a pane
// gone or dead is stopped, processes left running without it make it orphaned). A corrupt
// state file is rebuilt from what still runs (rebuild.go). The words a status is said in are
// made in one place (state_words.go), and the exit codes are a contract (errors.go).
//
// Loops are ralph's (package ralph); this package starts them, answers the commands that
// change them, and gives them a driver. The Regent (regent_*.go) is one process per state
// directory, run by a keeper in a window tmux revives, that drives every supervised loop, each
// in a goroutine of its own, through ralph.Loop, and looks at the agents' screens through a
// tmux control-mode client per server; a loop without the Regent, or run in the foreground,
// has a monitor process of its own that drives it the same way (ralph_monitor.go, driveLoop).
// Commands reach the Regent over its socket through swarm/regent, which holds the protocol,
// the paths of its files and a Client; starting it is this package's (regent_start.go), since
// that takes tmux and a command's environment. What ralph needs from the operating system it
// gets from here: adapters over swarm/proc (ralph.Procs) and the pane output pipes
// (output_pipe.go).
//
// The layering: this package is the top layer, with only cmd/swarm above it; no lower layer
// (state, tmux, ralph and its helpers, templates) may import it or its helpers under swarm/;
// it is also the only package that uses the CLI library. Its helpers keep what need not know
// the command line: swarm/dashboard (whose data comes through dashboard_data.go, since the
// dashboard does not import the commands), swarm/guide, swarm/heartbeat, swarm/proc,
// swarm/regent and swarm/demoagent. Like everybody else it runs tmux only through package
// tmux and git only through ralph/git. cmd/swarm's layering test checks all of this against
// the import graph.
package swarm
