// Package regent is how swarm's commands find and talk to the Regent, the one process per
// state directory that drives every supervised loop, and what both ends of that talk agree
// on: the Regent's files in the state directory (Files), what it says of itself in
// regent.json (Info), where it listens (Address, Listen), the requests it answers
// (WakeRequest, DropRequest, StatusRequest, QuitRequest: one line each way, a refusal
// starting with "error: "), the Report it answers a status request with, and the peer check
// by which it refuses processes of other users (SamePeer).
//
// Client is the commands' side: whether a Regent runs (Alive, told by its lock, never by a
// pid), who it is (PID), and the requests. The daemon itself, and everything that needs tmux
// or a command's environment to start or keep it, stays in the CLI: this package stands on
// state alone, so any layer that needs the Regent's word can have it without the CLI.
package regent
