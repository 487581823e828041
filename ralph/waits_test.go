package ralph

import (
	"testing"
	"time"
)

func TestAddWaitCountsByKind(t *testing.T) {
	var st State
	st.AddWait(WaitBackoff, 2*time.Second)
	st.AddWait(WaitLimit, time.Minute)
	st.AddWait(WaitBackoff, 3*time.Second)
	st.AddWait(WaitPerson, 0) // nothing waited is nothing recorded
	want := Waits{BackoffMs: 5000, LimitMs: 60000}
	if st.Waited == nil || *st.Waited != want {
		t.Fatalf("waited %+v, want %+v", st.Waited, want)
	}
	if got := st.Waited.Total(); got != 65*time.Second {
		t.Errorf("total %v, want 65s", got)
	}
}

func TestNothingWaitedLeavesNoRecord(t *testing.T) {
	var st State
	st.AddWait(WaitLimit, -time.Second)
	if st.Waited != nil {
		t.Fatalf("waited %+v, want none", st.Waited)
	}
	if w := st.TakeWaits(time.Now()); w != nil {
		t.Fatalf("took %+v, want nil", w)
	}
}

func TestPersonWaitKeepsItsFirstStart(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 22, 0, 0, 0, time.UTC)
	var st State
	st.PersonWaitBegins(t0)
	st.PersonWaitBegins(t0.Add(time.Minute)) // another dialog after the first: still one wait
	st.PersonWaitEnds(t0.Add(10 * time.Minute))
	if st.PersonSince != "" {
		t.Errorf("person_since %q after the wait ended", st.PersonSince)
	}
	if st.Waited == nil || st.Waited.PersonMs != 600000 {
		t.Fatalf("waited %+v, want 10 min for a person", st.Waited)
	}
}

func TestTakeWaitsEndsAPersonWaitWithTheIteration(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 22, 0, 0, 0, time.UTC)
	var st State
	st.AddWait(WaitBackoff, 4*time.Second)
	st.PersonWaitBegins(t0)
	w := st.TakeWaits(t0.Add(30 * time.Second))
	if w == nil || *w != (Waits{BackoffMs: 4000, PersonMs: 30000}) {
		t.Fatalf("took %+v", w)
	}
	if st.Waited != nil || st.PersonSince != "" {
		t.Errorf("state keeps waited %+v, person_since %q after they were taken", st.Waited, st.PersonSince)
	}
}

func TestAChangeOfStateBeginsAndEndsAWaitForAPerson(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 22, 0, 0, 0, time.UTC)
	var st State
	st.BlockedBy = "trust-folder"
	st.PersonWaitChanged(false, t0)
	// A permission asked while the dialog is still named: the same wait.
	st.NeedsPermission = "Bash(ls)"
	st.PersonWaitChanged(true, t0.Add(time.Minute))
	st.BlockedBy = ""
	st.PersonWaitChanged(true, t0.Add(2*time.Minute))
	if st.PersonSince != t0.Format(TimeFormat) || st.Waited != nil {
		t.Fatalf("person_since %q, waited %+v: want the wait under way since it began", st.PersonSince, st.Waited)
	}
	st.NeedsPermission = ""
	st.PersonWaitChanged(true, t0.Add(5*time.Minute))
	if st.PersonSince != "" || st.Waited == nil || st.Waited.PersonMs != 300000 {
		t.Fatalf("person_since %q, waited %+v: want five minutes waited", st.PersonSince, st.Waited)
	}
	// A change that leaves no one waited for begins nothing.
	st.PersonWaitChanged(false, t0.Add(6*time.Minute))
	if st.PersonSince != "" {
		t.Errorf("a wait began with nothing to wait for")
	}
}
