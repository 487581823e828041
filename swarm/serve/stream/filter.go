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

// FilterError is a worker or kind that cannot be asked for. Field is "worker" or "kind", so
// that whoever asked can say it in its own words (a query parameter, a command's flag).
type FilterError struct {
	Field, Value string
	Err          error // what is wrong with a worker's name or host; nil for a kind
}

func (e *FilterError) Error() string {
	if e.Field == "kind" {
		return fmt.Sprintf("invalid kind %s (a kind like loop.done, or its first word: loop)", quote(e.Value))
	}
	return fmt.Sprintf("worker %s: %v", quote(e.Value), e.Err)
}

// ParseFilter reads the workers and kinds asked for.
func ParseFilter(workers, kinds []string) (Filter, error) {
	var f Filter
	if len(workers) > maxFilters || len(kinds) > maxFilters {
		return f, fmt.Errorf("at most %d workers and %d kinds", maxFilters, maxFilters)
	}
	for _, w := range workers {
		name, host, onHost := strings.Cut(w, "@")
		if err := worker.ValidateName(name); err != nil {
			return f, &FilterError{Field: "worker", Value: w, Err: err}
		}
		if onHost && host != remote.LocalName {
			if err := remote.CheckName(host); err != nil {
				return f, &FilterError{Field: "worker", Value: w, Err: err}
			}
		}
		f.workers = append(f.workers, pick{name: name, host: host})
	}
	for _, k := range kinds {
		if !kindRE.MatchString(k) {
			return f, &FilterError{Field: "kind", Value: k}
		}
	}
	f.kinds = kinds
	return f, nil
}

// Kinds are the kinds asked for (none: any).
func (f Filter) Kinds() []string { return f.kinds }

// Asks reports whether any event of the machine host can be kept: a worker of another host
// alone leaves nothing to ask it for.
func (f Filter) Asks(host string) bool {
	return len(f.workers) == 0 || len(f.WorkersOn(host)) > 0
}

// WorkersOn are the names of the workers asked for that can be on host, for that host to
// filter by.
func (f Filter) WorkersOn(host string) []string {
	var names []string
	for _, w := range f.workers {
		if w.host == "" || w.host == host {
			names = append(names, w.name)
		}
	}
	return names
}

// Hosts are the hosts the workers asked for name.
func (f Filter) Hosts() []string {
	var hosts []string
	for _, w := range f.workers {
		if w.host != "" {
			hosts = append(hosts, w.host)
		}
	}
	return hosts
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
