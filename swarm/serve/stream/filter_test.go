package stream

import (
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/state/eventlog"
)

func TestFilterKeeps(t *testing.T) {
	ev := func(host, worker, kind string) eventlog.Event {
		return eventlog.Event{Host: host, Worker: worker, Kind: kind}
	}
	for _, c := range []struct {
		name           string
		workers, kinds []string
		e              eventlog.Event
		want           bool
	}{
		{"nothing asked keeps all", nil, nil, ev("local", "w1", "loop.done"), true},
		{"a worker on any host", []string{"w1"}, nil, ev("box", "w1", "loop.done"), true},
		{"another worker", []string{"w1"}, nil, ev("local", "w2", "loop.done"), false},
		{"a worker on its host", []string{"w1@box"}, nil, ev("box", "w1", "loop.done"), true},
		{"a worker on another host", []string{"w1@box"}, nil, ev("local", "w1", "loop.done"), false},
		{"this machine's worker", []string{"w1@local"}, nil, ev("local", "w1", "loop.done"), true},
		{"a kind", nil, []string{"loop.done"}, ev("local", "w1", "loop.done"), true},
		{"a family", nil, []string{"loop"}, ev("local", "w1", "loop.paused"), true},
		{"a word is no family of a longer one", nil, []string{"loo"}, ev("local", "w1", "loop.paused"), false},
		{"another kind", nil, []string{"gate"}, ev("local", "w1", "loop.done"), false},
		{"both asked, both met", []string{"w1"}, []string{"loop", "gate"}, ev("local", "w1", "gate.failed"), true},
		{"both asked, one met", []string{"w1"}, []string{"loop"}, ev("local", "w1", "gate.failed"), false},
	} {
		f, err := ParseFilter(c.workers, c.kinds)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := f.Keeps(c.e); got != c.want {
			t.Errorf("%s: Keeps = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestParseFilterRefuses(t *testing.T) {
	for _, c := range []struct {
		workers, kinds []string
		err            string
	}{
		{[]string{""}, nil, "empty"},
		{[]string{"w 1"}, nil, "invalid worker name"},
		{[]string{"w1@b\nx"}, nil, "invalid host name"},
		{nil, []string{"Loop"}, "invalid kind"},
		{nil, []string{"loop.done.x"}, "invalid kind"},
		{make([]string, 65), nil, "at most"},
	} {
		if _, err := ParseFilter(c.workers, c.kinds); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseFilter(%q, %q) = %v, want an error saying %q", c.workers, c.kinds, err, c.err)
		}
	}
}
