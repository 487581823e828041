package swarm

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
)

var queryNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func TestSinceTakesIDsPerMachineAndOneTime(t *testing.T) {
	for _, c := range []struct {
		name  string
		since []string
		read  string
		after map[string]int64
		time  time.Time
	}{
		{"a bare id is the machine read", []string{"41"}, "local", map[string]int64{"local": 41}, time.Time{}},
		{"a bare id with --host", []string{"41"}, "box", map[string]int64{"box": 41}, time.Time{}},
		{"an id per machine", []string{"local:3", "box:17"}, "local", map[string]int64{"local": 3, "box": 17}, time.Time{}},
		{"a duration back", []string{"2h"}, "local", map[string]int64{}, queryNow.Add(-2 * time.Hour)},
		{"RFC 3339", []string{"2026-05-01T10:00:00Z"}, "local", map[string]int64{}, time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)},
		{"a time and an id", []string{"box:5", "1d"}, "local", map[string]int64{"box": 5}, queryNow.Add(-24 * time.Hour)},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, err := parseEventsQuery(c.since, nil, nil, c.read, queryNow)
			if err != nil {
				t.Fatal(err)
			}
			if len(q.after) != len(c.after) || !q.since.Equal(c.time) {
				t.Fatalf("after %v since %v; want %v %v", q.after, q.since, c.after, c.time)
			}
			for h, id := range c.after {
				if q.after[h] != id {
					t.Fatalf("after %v; want %v", q.after, c.after)
				}
			}
		})
	}
}

func TestSinceRefusesWhatItCannotRead(t *testing.T) {
	for _, c := range []struct {
		since []string
		says  string
	}{
		{[]string{"soon"}, "invalid --since 'soon'"},
		{[]string{"-3"}, "an id is not negative"},
		{[]string{"3", "local:4"}, "local has an id already"},
		{[]string{"2h", "3h"}, "a time is given already"},
		{[]string{"bad host!:3"}, "invalid --since"},
		{[]string{"box:x"}, "invalid --since"},
	} {
		_, err := parseEventsQuery(c.since, nil, nil, "local", queryNow)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("--since %v: %v, want %q", c.since, err, c.says)
		}
	}
}

func TestFiltersKeepWhatTheyName(t *testing.T) {
	q, err := parseEventsQuery([]string{"1h", "box:0"}, []string{"w1", "w2@box"}, []string{"loop", "person.needed"}, "local", queryNow)
	if err != nil {
		t.Fatal(err)
	}
	recent, old := queryNow.Add(-time.Minute), queryNow.Add(-2*time.Hour)
	for _, c := range []struct {
		host string
		e    eventlog.Event
		want bool
	}{
		{"local", eventlog.Event{Kind: eventlog.LoopDone, Worker: "w1", Time: recent}, true},
		{"local", eventlog.Event{Kind: eventlog.LoopDone, Worker: "w1", Time: old}, false},     // before --since
		{"box", eventlog.Event{Kind: eventlog.LoopDone, Worker: "w1", Time: old}, true},        // box starts at an id
		{"local", eventlog.Event{Kind: eventlog.LoopDone, Worker: "w2", Time: recent}, false},  // w2 is box's
		{"box", eventlog.Event{Kind: eventlog.PersonNeeded, Worker: "w2", Time: recent}, true}, // a kind named whole
		{"box", eventlog.Event{Kind: eventlog.PersonAnswered, Worker: "w2", Time: recent}, false},
		{"local", eventlog.Event{Kind: "loopy.thing", Worker: "w1", Time: recent}, false}, // a family is a whole word
		{"local", eventlog.Event{Kind: eventlog.HostBack, Time: recent}, false},
	} {
		if got := q.keeps(c.host, c.e); got != c.want {
			t.Errorf("keeps(%s, %s %s) = %v", c.host, c.e.Kind, c.e.Worker, got)
		}
	}
	if !q.filter.Asks("box") || !q.filter.Asks("local") {
		t.Error("both machines have a worker asked for")
	}
	only, _ := parseEventsQuery(nil, []string{"w2@box"}, nil, "local", queryNow)
	if only.filter.Asks("local") || only.filter.Asks("gpu") || !slices.Equal(only.filter.WorkersOn("box"), []string{"w2"}) {
		t.Error("a worker of box alone asks box only")
	}
}

func TestFiltersRefuseWhatCannotBeANameOrKind(t *testing.T) {
	for _, c := range []struct{ workers, kinds []string }{
		{[]string{"bad name"}, nil},
		{[]string{"w1@bad host"}, nil},
		{nil, []string{"Loop"}},
		{nil, []string{"loop.done.twice"}},
	} {
		if _, err := parseEventsQuery(nil, c.workers, c.kinds, "local", queryNow); err == nil {
			t.Errorf("--worker %v --kind %v taken", c.workers, c.kinds)
		}
	}
}

// Merged by time, each machine's events keep their order, even when a clock steps back.
func TestMergeByTimeKeepsEachMachinesOrder(t *testing.T) {
	at := func(id int64, sec int, host string) eventlog.Event {
		return eventlog.Event{ID: id, Time: queryNow.Add(time.Duration(sec) * time.Second), Host: host}
	}
	local := []eventlog.Event{at(1, 1, "local"), at(2, 5, "local"), at(3, 3, "local")} // the clock stepped back
	box := []eventlog.Event{at(7, 2, "box"), at(8, 4, "box"), at(9, 6, "box")}
	var got []string
	for _, e := range mergeByTime([][]eventlog.Event{local, box, nil}) {
		got = append(got, e.Host+":"+string(rune('0'+e.ID)))
	}
	want := []string{"local:1", "box:7", "box:8", "local:2", "local:3", "box:9"}
	if !slices.Equal(got, want) {
		t.Fatalf("merged %v, want %v", got, want)
	}
}
