package driver

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
)

// What a loop waited is in the record of the iteration after the wait, so a report reads it
// instead of guessing it from the gaps between iterations.

// iterationWaits is what each iteration's record says was waited (nil where nothing was).
func iterationWaits(t *testing.T, h *harness) []*ralph.Waits {
	t.Helper()
	recs, skipped, err := h.dir.ReadIterations()
	if err != nil || skipped > 0 {
		t.Fatalf("iterations.jsonl: %v (%d lines skipped)", err, skipped)
	}
	out := make([]*ralph.Waits, len(recs))
	for i, r := range recs {
		out[i] = r.Waited
	}
	return out
}

func TestBackoffsAreRecordedWithTheIterationAfterThem(t *testing.T) {
	h := newHarness(t, setup{max: 10}, agentScript{submit: exitOnSubmit(1)})
	if code := h.run(h.config()); code != 1 {
		t.Errorf("Run = %d, want 1", code)
	}
	want := []*ralph.Waits{nil, {BackoffMs: 1000}, {BackoffMs: 2000}, {BackoffMs: 4000}, {BackoffMs: 8000}}
	if got := iterationWaits(t, h); !reflect.DeepEqual(got, want) {
		t.Errorf("waits %s, want %s", showWaits(got), showWaits(want))
	}
	if st := h.state(); st.Waited != nil || st.PersonSince != "" {
		t.Errorf("the state keeps waits the records took: %+v, %q", st.Waited, st.PersonSince)
	}
}

func TestADialogIsTimeWaitedForAPerson(t *testing.T) {
	h := newHarness(t, setup{max: 2, readyTimeout: 30}, agentScript{
		start: func(tn turn) { tn.p.SetScreen(readBypassDialog(t)) },
	})
	h.run(h.config())
	got := iterationWaits(t, h)
	if len(got) != 2 {
		t.Fatalf("%d records, want 2", len(got))
	}
	// Each agent sat at the dialog until its ready timeout; the second after a backoff.
	for i, w := range got {
		if w == nil || w.PersonMs < 29000 || w.PersonMs > 31000 || w.BackoffMs != int64(i)*1000 || w.LimitMs != 0 {
			t.Errorf("iteration %d waited %s, want about 30 s for a person after %d s of backoff", i+1, showWaits([]*ralph.Waits{w}), i)
		}
	}
	if st := h.state(); st.BlockedBy == "" || st.PersonSince != "" {
		t.Errorf("blocked_by %q, person_since %q: want the dialog named and its wait over with the agent", st.BlockedBy, st.PersonSince)
	}
}

func TestARolledBackIterationSaysSo(t *testing.T) {
	h, _, _ := supervisionGated(t, "grep -qx ok status.txt", "ok\n", func(dir string) error {
		_, err := supervisionCommit(dir, "break the suite", map[string]string{"status.txt": "broken\n"})
		return err
	})
	h.run(h.config())
	recs, _, err := h.dir.ReadIterations()
	if err != nil || len(recs) != 1 {
		t.Fatalf("records %+v (%v), want one", recs, err)
	}
	if !recs[0].RolledBack || len(recs[0].Commits) != 1 {
		t.Errorf("record rolledBack=%v commits=%v, want its one commit rolled back", recs[0].RolledBack, recs[0].Commits)
	}
}

func TestKeptCommitsAreNotRolledBack(t *testing.T) {
	h, _, _ := supervisionGated(t, "grep -qx ok status.txt", "ok\n", func(dir string) error {
		_, err := supervisionCommit(dir, "add feature", map[string]string{"feature.txt": "new\n"})
		return err
	})
	h.run(h.config())
	recs, _, err := h.dir.ReadIterations()
	if err != nil || len(recs) != 1 || recs[0].RolledBack {
		t.Fatalf("records %+v (%v), want one not rolled back", recs, err)
	}
}

func showWaits(ws []*ralph.Waits) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = "nil"
		if w != nil {
			parts[i] = fmt.Sprintf("%+v", *w)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}
