// Package eventlog is the state directory's event log: one durable, append-only file of typed
// events, each with an id one more than the one before, written where a decision is recorded
// (the loop's driver, land, spawn and kill, the hosts' view), and read by `swarm events`,
// `swarm wait --until` and whatever follows the fleet from elsewhere. It is bounded on disk:
// past MaxSize the file moves to events.jsonl.1 (replacing the one there) and the ids go on.
package eventlog
