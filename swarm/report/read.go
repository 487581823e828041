package report

import (
	"errors"
	"fmt"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/land"
)

// Read gathers what is recorded of the worker name: its loop's state and iteration records
// (when it is a loop) and its landing record. What cannot be read is told in problems and
// left out; the rest is still read.
func Read(d *state.Dir, name string) (f Facts, problems []string) {
	f.Name = name
	ld := ralph.DirFor(d, name)
	st, err := ld.Load()
	switch {
	case err == nil:
		f.Loop = st
	case !errors.Is(err, ralph.ErrNoLoop):
		problems = append(problems, fmt.Sprintf("its loop state cannot be read: %v", err))
	}
	if err == nil || !errors.Is(err, ralph.ErrNoLoop) {
		// The iterations of a loop whose state is damaged are still its history.
		recs, skipped, err := ld.ReadIterations()
		f.Records = recs
		if err != nil {
			problems = append(problems, fmt.Sprintf("its iterations.jsonl cannot be read to its end: %v", err))
		}
		if skipped > 0 {
			problems = append(problems, fmt.Sprintf("%s of its iterations.jsonl cannot be read", words.Plural(skipped, "line")))
		}
	}
	l, err := land.LoadRecord(d, name)
	if err != nil {
		problems = append(problems, fmt.Sprintf("its landing record cannot be read: %v", err))
	}
	f.Landing = l
	return f, problems
}
