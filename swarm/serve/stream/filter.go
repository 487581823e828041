package stream

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/swarm-dev/swarm/state/eventlog"
	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// Filter is which events a subscriber is sent: those of the workers named (any, when none)
// and of the kinds named (any, when none). It reads the words `swarm events` reads in its
// --worker and --kind: NAME or NAME@HOST, a kind (loop.done) or its first word (loop).
type Filter struct {
	workers []pick
	kinds   []string
}

// pick is one worker asked for: its name, and its host ("" for any).
type pick struct{ name, host string }

// maxFilters bounds how many workers, and how many kinds, one subscriber names.
const maxFilters = 64

// kindRE is the form of a kind asked for: an event's kind or the word before its dot.
var kindRE = regexp.MustCompile(`^[a-z][a-z_]*(\.[a-z][a-z_]*)?$`)

// ParseFilter reads the workers and kinds asked for.
func ParseFilter(workers, kinds []string) (Filter, error) {
	var f Filter
	if len(workers) > maxFilters || len(kinds) > maxFilters {
		return f, fmt.Errorf("at most %d workers and %d kinds", maxFilters, maxFilters)
	}
	for _, w := range workers {
		name, host, onHost := strings.Cut(w, "@")
		if err := worker.ValidateName(name); err != nil {
			return f, fmt.Errorf("worker: %w", err)
		}
		if onHost && host != remote.LocalName {
			if err := remote.CheckName(host); err != nil {
				return f, fmt.Errorf("worker %s: %w", quote(w), err)
			}
		}
		f.workers = append(f.workers, pick{name: name, host: host})
	}
	for _, k := range kinds {
		if !kindRE.MatchString(k) {
			return f, fmt.Errorf("invalid kind %s (a kind like loop.done, or its first word: loop)", quote(k))
		}
	}
	f.kinds = kinds
	return f, nil
}

// Keeps reports whether e, its Host set to the machine it is from, is one the filter asks for.
func (f Filter) Keeps(e eventlog.Event) bool {
	if len(f.kinds) > 0 && !anyKind(f.kinds, e.Kind) {
		return false
	}
	if len(f.workers) == 0 {
		return true
	}
	for _, w := range f.workers {
		if w.name == e.Worker && (w.host == "" || w.host == e.Host) {
			return true
		}
	}
	return false
}

func anyKind(kinds []string, kind string) bool {
	for _, k := range kinds {
		if k == kind || strings.HasPrefix(kind, k+".") {
			return true
		}
	}
	return false
}
