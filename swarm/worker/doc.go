// Package worker is the life of a worker on one machine, as a library: starting it (in a tmux
// window, or as a detached process group under swarm's exit-recording wrapper), telling its
// status as it is now, ending it, starting it again, and removing what it left.
//
// Everything goes through a Machine: the state directory the workers' records live in, swarm's
// private tmux server (and the rule that a worker stays on the server it was spawned on, see
// TmuxFor), and the process table. A Machine is always the machine swarm runs on (OpenLocal):
// workers on other machines are the Machines of the swarm that runs there, reached by running
// that swarm over SSH (swarm/remote), so a loop never depends on a connection. What it offers
// reads as what one machine offers for workers, and nothing of the command line: no flags, no
// exit codes, no printing beyond one-line warnings to the writer it is given.
//
// The status of a worker is never taken from its record alone: Reconcile asks tmux and the
// process table (a pane gone or dead is stopped, processes left running without it make it
// orphaned), one look per tmux server (LiveView). Every worker carries its identity outside
// the record, in its pane's @swarm_id and its processes' environment, so a stop ends what
// escaped its window and a corrupt record file is rebuilt from what still runs (Rebuild).
//
// A worker's worktree is a git worktree, or for a sandboxed agent a clone of the repository
// that borrows its objects (CreateClone): the same path, branch and rules, but refs of its
// own, its branch brought back into the repository (FetchBack) when landing needs it and
// before the clone is removed.
//
// Errors are plain Go errors, wrapped with %w; those a caller needs to tell apart have a type
// or a sentinel (ErrNoWorker, *InterruptedError, *NotReadyError). The package stands on
// state, tmux, ralph (a worker may be a loop's, whose state decides whether it is still
// live) and ralph/proc, never on the commands above it: cmd/swarm's layering test checks
// that, so the Regent and the commands can share one lifecycle.
package worker
