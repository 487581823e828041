package report

import (
	"encoding/json"
	"strings"
	"testing"
)

func reply(t *testing.T, r Report) []byte {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestAcceptTakesAHostsWorkersAsItsOwn(t *testing.T) {
	r := sample()
	r.Workers[0].Host = "local"
	r.Totals.Workers = 99
	got, err := Accept("box", reply(t, r))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range got.Workers {
		if w.Host != "box" {
			t.Errorf("worker %s said to be %q's", w.Name, w.Host)
		}
	}
	if got.Totals.Workers != 0 || got.Hosts != nil {
		t.Errorf("the host's own totals and hosts were taken: %+v, %+v", got.Totals, got.Hosts)
	}
}

func TestAcceptRefusesBadNamesAndTooMuch(t *testing.T) {
	r := sample()
	r.Workers[1].Name = "../../etc"
	if _, err := Accept("box", reply(t, r)); err == nil || !strings.Contains(err.Error(), "names a worker badly") {
		t.Errorf("a bad name: %v", err)
	}
	if _, err := Accept("box", []byte("not json")); err == nil {
		t.Error("a reply that is no report was taken")
	}
	if _, err := Accept("box", make([]byte, MaxReply+1)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a reply too large: %v", err)
	}
}

func TestAcceptBoundsWhatItKeeps(t *testing.T) {
	r := sample()
	w := &r.Workers[0]
	w.Iterations = []Iteration{{N: 1, Outcome: OutcomeFailed, Reason: strings.Repeat("é", 2000), DurationS: -5},
		{N: 2, Outcome: OutcomeDone}}
	w.Outcomes = Outcomes{Total: -1000, Failed: 7}
	w.Time.WorkingS, w.Commits = -3, -1
	w.CostUSD = usd(-2)
	r.Damaged = []Damage{{Host: "elsewhere", Worker: "bad name!", Problem: strings.Repeat("x", 5000)}}
	got, err := Accept("box", reply(t, r))
	if err != nil {
		t.Fatal(err)
	}
	g := got.Workers[0]
	if reason := g.Iterations[0].Reason; len(reason) > maxText+len("…") || !strings.HasSuffix(reason, "…") || !strings.HasPrefix(reason, "éé") {
		t.Errorf("reason of %d bytes kept: %q…", len(reason), reason[:20])
	}
	// What is counted from the iterations is counted again from them.
	if want := (Outcomes{Total: 2, Done: 1, Failed: 1}); g.Outcomes != want {
		t.Errorf("outcomes %+v, want %+v", g.Outcomes, want)
	}
	if g.Iterations[0].DurationS != 0 || g.Time.WorkingS != 0 || g.Commits != 0 || g.CostUSD != nil {
		t.Errorf("figures below zero kept: %+v", g)
	}
	if len(g.Failures) != 1 || g.Failures[0].Count != 1 {
		t.Errorf("failures %+v", g.Failures)
	}
	d := got.Damaged[0]
	if d.Host != "box" || d.Worker != "?" || len(d.Problem) > maxText+len("…") {
		t.Errorf("damage %+v", d)
	}
}
