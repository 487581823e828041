// Package regent is the Regent: the one process per state directory that drives every
// supervised loop, and how commands start it, find it and talk to it.
//
// The daemon (Serve) holds the Regent lock for its whole life, answers requests on its socket,
// and drives each loop in a goroutine of its own under a context of the loop's, derived from
// the daemon's, so dropping one loop, ending every agent and the daemon stopping each cancel
// just what they should. It picks loops up from their state on disk (at start, when woken, and
// every minute), so a Regent started again after a crash takes over where its predecessor
// stopped, and it leaves when nothing needs it, decided under the start lock that Ensure takes
// too. It looks at the agents' screens through one tmux control-mode client per server
// (watch.go). It runs under a keeper (Keep) in a window of the regent session that tmux
// revives; a Regent that keeps dying is given up (crashloop.go) until Restart.
//
// Its other duty is the heartbeats (heartbeats.go): a goroutine of its own types every active
// heartbeat's message when swarm/heartbeat says it is due, holding the heartbeat store's
// runner lock while it does, so that one keeper and one long-lived process per state directory
// serve both, and an active heartbeat keeps the Regent as a loop does.
//
// A loop without the Regent, or one run in a terminal, has a monitor process of its own
// (RunMonitor, StartMonitor); both kinds drive a loop through the same driveLoop on ralph's
// policy core. The foreground's face (progress line, summary, exit codes) is the commands'.
//
// What changes a loop from outside its driver is here too, beside the code that drives it, so the
// commands only read flags and say what happened: starting a loop (BeginLoop creates the worker
// with iteration 1's agent through the same driver.Starter every later iteration starts through;
// MakeRoomForLoop frees its name first; SaveSequence records a chain's or an agent's later loops;
// UndoLoop takes a half-started one down), pausing and resuming it (PauseLoop, ResumeLoop under
// the loop lock, then WakeDriver so something drives it again), and a kill (StopLoopOnKill stops
// the loop for good, even on a full disk, and ends whatever drives it; Kill then ends the worker
// and its heartbeat). They return what the commands print, never print themselves beyond the
// Host's one-line warnings.
//
// What both ends of the talk agree on is here too: the Regent's files (Files), regent.json
// (Info), where it listens (Address, Listen), the requests it answers (one line each way, a
// refusal starting with "error: "), the Report of a status request, and the peer check by
// which it refuses other users (SamePeer); Client is the commands' side.
//
// The package stands on swarm/worker's Host (state directory, tmux server, process table), ralph
// and its driver (ralph/driver), swarm/heartbeat, tmux and state, never on the commands: it has
// no flags, no exit codes and no command line of its own beyond the hidden `swarm regent
// __serve|__keep` and `swarm ralph __monitor` it starts itself with, so the one daemon can be
// reasoned about, and tested, without the CLI. cmd/swarm's layering test checks that it imports
// neither package swarm, nor swarm/dashboard, nor the CLI library.
package regent
