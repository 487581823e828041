// Package dashboard is swarm's live view of every worker and loop (swarm dashboard, swarm
// top): a table of rows in words, the failed and blocked first, and below it the selected
// worker's screen and its loop's recent events.
//
// The pieces:
//
//   - Data (data.go) is the outside world: it reads the rows (a Snapshot), a worker's screen
//     or log and a loop's events, and runs swarm's commands for the keys. The rows come made,
//     in swarm's own words; this package reads no state directory and no tmux, so that it can
//     be driven by a fake in its tests. The CLI's adapter (swarm/dashboard_data.go) is the
//     real one.
//   - The model (model.go) is a Bubble Tea model: what it shows follows from the messages it
//     gets, and reading and acting go through Data in commands beside it.
//   - The keys (keys.go) select, filter, sort, attach, pause, resume, send and kill, asking
//     first where a key cannot be undone.
//   - The rows shown (sort.go) are those the filter lets through, in the order in force:
//     by attention (what needs a person first), by name or by start.
//   - The view (view.go) draws one frame from what is shown, a pure function, so frames are
//     compared with golden ones (testdata) and timed in a benchmark.
//
// Run is the live view on a terminal; RenderOnce is one frame for scripts (--once).
package dashboard
