package ralph

import (
	"testing"
	"time"
)

// When a loop came to need a person: one transition per test.

var (
	needAt   = time.Date(2026, 11, 25, 2, 0, 0, 0, time.UTC)
	needLate = needAt.Add(6 * time.Hour)
)

func wantSince(t *testing.T, st *State, want time.Time) {
	t.Helper()
	got := ParseTime(st.NeedsPersonSince)
	if !got.Equal(want) || want.IsZero() != (st.NeedsPersonSince == "") {
		t.Errorf("needs a person since %q, want %v", st.NeedsPersonSince, want)
	}
}

func TestNeedBeginsAtTheDialog(t *testing.T) {
	var st State
	st.WaitsAtDialog("trust-folder", needAt)
	if st.BlockedBy != "trust-folder" {
		t.Errorf("blocked by %q", st.BlockedBy)
	}
	wantSince(t, &st, needAt)
}

func TestNeedBeginsAtThePermission(t *testing.T) {
	var st State
	st.WaitsForPermission("Bash(rm -rf build)", needAt)
	if st.NeedsPermission != "Bash(rm -rf build)" {
		t.Errorf("needs permission %q", st.NeedsPermission)
	}
	wantSince(t, &st, needAt)
}

func TestNeedBeginsAtAnUnknownScreen(t *testing.T) {
	var st State
	st.ShowsUnknownScreen("/s/unknown-iteration-1.txt", needAt)
	wantSince(t, &st, needAt)
}

func TestNeedSeenAgainKeepsItsBeginning(t *testing.T) {
	st := State{BlockedBy: "trust-folder", NeedsPersonSince: needAt.Format(TimeFormat)}
	st.WaitsAtDialog("trust-folder", needLate)
	wantSince(t, &st, needAt)
}

func TestNeedEndsWhenTheAgentIsReady(t *testing.T) {
	st := State{BlockedBy: "trust-folder", UnknownScreen: "/s", NeedsPersonSince: needAt.Format(TimeFormat)}
	st.AgentReady()
	if st.BlockedBy != "" || st.UnknownScreen != "" {
		t.Errorf("still blocked: %+v", st)
	}
	wantSince(t, &st, time.Time{})
}

func TestNeedEndsWhenThePermissionIsAnswered(t *testing.T) {
	st := State{NeedsPermission: "Bash", NeedsPersonSince: needAt.Format(TimeFormat)}
	st.PermissionAnswered()
	wantSince(t, &st, time.Time{})
}

func TestAnsweredPermissionLeavesADialogsNeed(t *testing.T) {
	st := State{NeedsPermission: "Bash", UnknownScreen: "/s", NeedsPersonSince: needAt.Format(TimeFormat)}
	st.PermissionAnswered()
	wantSince(t, &st, needAt)
}

// The loop restarts an agent that never got past the dialog: the person is needed since the
// first time.
func TestNeedOutlivesTheRestartOfABlockedAgent(t *testing.T) {
	st := State{BlockedBy: "trust-folder", NeedsPersonSince: needAt.Format(TimeFormat)}
	st.BeginIteration(2, needLate, "")
	if st.BlockedBy != "" {
		t.Errorf("the new agent is blocked by %q before it was seen", st.BlockedBy)
	}
	wantSince(t, &st, needAt)
}

func TestNeedDoesNotOutliveAnAgentThatNeededNone(t *testing.T) {
	st := State{NeedsPersonSince: needAt.Format(TimeFormat)}
	st.BeginIteration(3, needLate, "")
	wantSince(t, &st, time.Time{})
}

func TestNeedEndsWithTheLoop(t *testing.T) {
	st := State{Status: StatusRunning, BlockedBy: "trust-folder", NeedsPersonSince: needAt.Format(TimeFormat)}
	var d Decision
	d.Stop(StatusFailed, "consecutive_failures", "")
	d.applyTo(&st, needLate)
	wantSince(t, &st, time.Time{})
}

func TestNeedEndsWithAPause(t *testing.T) {
	st := State{Status: StatusRunning, NeedsPermission: "Bash", NeedsPersonSince: needAt.Format(TimeFormat)}
	Decision{Status: StatusPaused, PausedNow: true}.applyTo(&st, needLate)
	wantSince(t, &st, time.Time{})
}
