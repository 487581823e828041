// Package stream serves the state directory's event log as Server-Sent Events: an
// http.Handler the server mounts at /api/v1/events/stream, behind its own auth.
//
// Each event is sent as `id: CURSOR` and `data: JSON` (an eventlog.Event, its host set:
// "local" for this machine's) and a blank line; `retry: 2000` once at the start, and a
// comment line (`: keep-alive`) every 30 s to every subscriber from one shared timer. The
// cursor is where the subscriber stands in every machine's log: `ID` for this machine's alone,
// `ID,HOST:ID,...` once hosts have told where they stand (Cursor), so one Last-Event-ID
// resumes every machine, nothing missed and nothing twice. A subscriber resumes after the
// Last-Event-ID header or ?after=CURSOR; without either it starts at the end (only new
// events), or at ?since=RFC3339; ?worker=W and ?kind=K filter as `swarm events` does.
//
// One hub reads for every subscriber. Nothing of it runs while nobody is subscribed. While
// someone is, it sleeps until the kernel's watch of the state directory (state.WatchFiles, as
// `swarm events --follow` watches it) tells of an append, then reads what was appended with
// the log's Reader (across its rotation) and hands it to every subscriber; the local log is
// never polled (where the kernel cannot tell, as on macOS, WatchFiles looks every second).
// The hosts are asked for their events every Config.Poll (3 s), and only while someone is
// subscribed and hosts are recorded. A subscriber whose buffer is full is let go, never
// waited for: the others go on, and it resumes by its cursor. A subscriber's own backlog
// (after its cursor, or from its since) is read by its own request, once, from the log.
//
// The figures: `go test -run '^$' -bench . -benchtime 1x ./swarm/serve/stream/` runs 50
// subscribers over loopback HTTP with 10 events a second appended for 5 s and reports the
// latency from Append to receipt (p50-ms, p99-ms); TestIdleHubSleeps checks that with
// subscribers connected and nothing appended the hub does not wake.
package stream
