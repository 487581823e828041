package ralph

import (
	"strings"
	"testing"
)

// An ended loop is said the same way wherever it is shown: finished work is done, a loop a
// person ended is killed, any other end names its reason.
func TestEndWords(t *testing.T) {
	for _, c := range []struct {
		status       Status
		reason       string
		word, detail string
		ended        bool
	}{
		{StatusStopped, "done_pattern", EndDone, "", true},
		{StatusStopped, "done_file", EndDone, "", true},
		{StatusStopped, "complete", EndDone, "", true},
		{StatusStopped, "killed", EndKilled, "", true},
		{StatusStopped, "max_iterations", EndStopped, "max_iterations", true},
		{StatusStopped, "stagnated", EndStopped, "stagnated", true},
		{StatusFailed, "consecutive_failures", EndFailed, "consecutive_failures", true},
		{StatusRunning, "", "", "", false},
		{StatusPaused, "paused", "", "", false},
		{StatusWaiting, "", "", "", false},
	} {
		word, detail, ended := EndWords(c.status, c.reason)
		if word != c.word || detail != c.detail || ended != c.ended {
			t.Errorf("%s/%s: %q %q %v, want %q %q %v", c.status, c.reason, word, detail, ended, c.word, c.detail, c.ended)
		}
	}
}

// The summary says how the loop ended in the same words, keeping how it got there.
func TestSummaryStatusInWords(t *testing.T) {
	for _, c := range []struct {
		status Status
		reason string
		want   string
	}{
		{StatusStopped, "done_pattern", "- **Status:** done (done_pattern)\n"},
		{StatusStopped, "killed", "- **Status:** killed\n"},
		{StatusStopped, "max_iterations", "- **Status:** stopped (max_iterations)\n"},
		{StatusFailed, "consecutive_failures", "- **Status:** failed (consecutive_failures)\n"},
		{StatusPaused, "paused", "- **Status:** paused (paused)\n"},
	} {
		if got := (Summary{Worker: "w", Status: c.status, ExitReason: c.reason}).Markdown(); !strings.Contains(got, c.want) {
			t.Errorf("%s/%s: summary lacks %q:\n%s", c.status, c.reason, c.want, got)
		}
	}
}
