package land

import (
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/state/eventlog"
)

// told are the state directory's events, each as "kind worker branch how".
func (f *fixture) told() []eventlog.Event {
	f.t.Helper()
	all, err := eventlog.Log{Root: f.dir.Root}.Since(0, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	return all
}

func brief(es []eventlog.Event) []string {
	var out []string
	for _, e := range es {
		out = append(out, strings.Join(strings.Fields(strings.Join([]string{e.Kind, e.Worker, e.Branch, e.How}, " ")), " "))
	}
	return out
}

func TestLandingsAreTold(t *testing.T) {
	f := newFixture(t)
	f.commit("left", "a.txt", "left\n")
	f.commit("right", "a.txt", "right\n")
	f.commit("red", "c.txt", "c\n")
	landed := f.land("left", "")
	red := f.git("rev-parse", "red")
	f.land("right", "")
	f.land("red", "echo the suite is red; exit 3")
	got := f.told()
	want := []string{"land.landed w-left left", "land.sent_back w-right right needs_rebase", "land.sent_back w-red red breaks_tests"}
	if !reflect.DeepEqual(brief(got), want) {
		t.Fatalf("events %q, want %q", brief(got), want)
	}
	if got[0].Commit != landed.Commit || got[0].Detail != "main" {
		t.Errorf("landed %+v, want main at %s", got[0], landed.Commit)
	}
	if got[1].Reason != "conflicts with main in a.txt" {
		t.Errorf("sent back %+v, want why", got[1])
	}
	if got[2].Commit != red || !strings.Contains(got[2].Reason, "exit 3") {
		t.Errorf("sent back %+v, want the branch's commit %s and why", got[2], red)
	}
}

func TestALandingIsToldOnce(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	r := f.land("one", "")
	// Saved again (its loop resumed), it is the same landing.
	if err := MarkResumed(f.dir, r); err != nil {
		t.Fatal(err)
	}
	if got := brief(f.told()); !reflect.DeepEqual(got, []string{"land.landed w-one one"}) {
		t.Errorf("events %q, want the landing once", got)
	}
	// Landed again on purpose, the record says it is there already, and so does its event.
	f.land("one", "")
	if got := f.told(); len(got) != 2 || got[1].Kind != eventlog.Landed || got[1].Reason != "already on main" {
		t.Errorf("events %+v, want a second landing that says the branch was there already", got)
	}
}
