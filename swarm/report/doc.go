// Package report tells what happened while no one watched: per worker, its iterations and how
// each ended, the time it worked against the time it waited (usage limits, backoffs, a
// person), its cost and tokens, its checks, its landing, and what needs a person now, with
// totals. It is `swarm report`'s core.
//
// It reads only what swarm records as it goes (a loop's state.json, iterations.jsonl and its
// landing record), through one thin reader (Read); everything else is pure: Build makes the
// report's workers from those facts and a time window, Sum adds them up, Text writes them for
// a terminal of a given width. A host's report comes as the JSON of these same types (the
// published shape, documented in the commands guide), and Accept takes it in as untrusted:
// bounded, its names validated, its text cleaned before it can reach a terminal.
//
// It stands on the records' own packages (state, ralph, swarm/land and the worker names of
// swarm/worker), never on the commands or the Regent.
package report
