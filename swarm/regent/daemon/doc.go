// Package daemon is the Regent's process: `swarm regent __serve` (Serve) and its keeper
// `swarm regent __keep` (Keep).
//
// Serve holds the Regent lock for its whole life, answers requests on its socket from
// processes of this user alone (SamePeer), and drives each loop in a goroutine of its own under
// a context of the loop's, derived from the daemon's, so dropping one loop, ending every agent
// and the daemon stopping each cancel just what they should. It picks loops up from their state
// on disk (at start, when woken, and every minute), so a Regent started again after a crash
// takes over where its predecessor stopped, and it leaves when nothing needs it, decided under
// the start lock that regent.Ensure takes too. Each loop is driven through swarm/loop's
// Loops.Drive, as a loop's own monitor drives it. It looks at the agents' screens through one
// tmux control-mode client per server (watch.go). A Regent that keeps dying is given up by its
// keeper (crashloop.go) until regent.Restart.
//
// Its other duty is the heartbeats (heartbeats.go): a goroutine of its own types every active
// heartbeat's message when swarm/heartbeat says it is due, holding the heartbeat store's
// runner lock while it does, so that one keeper and one long-lived process per state directory
// serve both, and an active heartbeat keeps the Regent as a loop does.
//
// It stands on swarm/regent (the files and the protocol it shares with its clients), swarm/loop,
// swarm/worker's Machine, ralph and its driver, swarm/heartbeat, tmux and state; it has no flags,
// no exit codes and no command line of its own beyond the hidden commands it is started with,
// so the one daemon can be reasoned about, and tested, without the CLI. cmd/swarm's layering
// test checks that nothing imports it but the command that starts it.
package daemon
