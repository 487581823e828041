// Package regent is how commands find, start and ask the Regent: the one process per state
// directory that drives every supervised loop and sends the heartbeats.
//
// Client talks to a running Regent over its socket, one request line and one answer line each
// way (protocol.go: the requests, OK, a refusal starting with "error: ", the Report of a status
// request). What both ends agree on is here too: the Regent's files in the state directory
// (Files, regent.json as Info, where it listens: Address, Listen), which loops are its to drive
// (drives.go: NeedsMonitor, Drives), and whether its keeper gave it up after a crash loop
// (GivenUp).
//
// Ensure starts it, under a keeper in a window of the regent session that tmux revives, when
// none runs, or wakes the one that does; Revive starts it again for loops left undriven,
// Settled waits for one with nothing left to do to leave, Restart hands its loops to a new one.
//
// The process itself is swarm/regent/daemon, below this package: it imports this one, never
// the other way round, and only the command that starts it (`swarm regent __serve|__keep`)
// imports it; what a loop's life is from outside its driver (begin, pause, resume, kill, a
// monitor) is swarm/loop, which asks the Regent through this package. cmd/swarm's layering
// test checks those walls.
package regent
