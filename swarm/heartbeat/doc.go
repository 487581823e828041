// Package heartbeat keeps the schedules on which swarm nudges workers: a message ("continue"
// by default) typed into a worker at every interval, for agents that stall on a usage limit
// and go on only when told to. It holds two things, both free of tmux and processes so that
// the schedule can be tested by the clock alone:
//
//   - the state files, one per worker under $SWARM_DIR/heartbeats (State, Store), in the
//     field set the Python swarm writes, changed only under the store's lock (Store.Update)
//     so that the Regent and a command never overwrite each other's change;
//   - the decision of what is due (Decide): send now or not, the status after this look
//     (expired, stopped when the worker is gone) and when to look next. A beat missed while
//     nothing was watching is sent once, not once per interval missed.
//
// What it must not do is act: the Regent (swarm/regent/daemon), the one long-lived process per
// state directory, sleeps until the next Wake, types the message through tmux and records it
// with Sent; the commands (swarm/heartbeat*.go) change the schedules and start or wake the
// Regent. Store names the runner lock, held by whoever sends the beats, so that a runner of an
// older swarm and the Regent never both do. ParseDuration and FormatDuration read and write
// the short durations of the command line ("4h", "1h30m", "1d").
//
// heartbeat stands on package state alone. It sits under swarm/ because the commands and the
// Regent are its only users: a loop (package ralph) waits for a usage limit's reset by itself (ralph/limits.go).
package heartbeat
