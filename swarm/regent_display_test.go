package swarm

import (
	"bytes"
	"testing"
	"time"
)

func TestDisplayLogLine(t *testing.T) {
	at := time.Date(2026, 11, 25, 14, 25, 1, 0, time.Local)
	stamp := at.Format("2006-01-02T15:04:05")
	for _, tc := range []struct{ in, want string }{
		{stamp + " [REGENT] Tests passed ✅ — commit abc1234 kept", "[14:25:01]  🛡️  Regent: Tests passed ✅ — commit abc1234 kept"},
		{stamp + " 🛡️  Regent: Restarting", "[14:25:01]  🛡️  Regent: Restarting"},
		{stamp + " [START] iteration 1/3", stamp + " [START] iteration 1/3"},
		{stamp + " [ralph] w: starting iteration 1/3", stamp + " [ralph] w: starting iteration 1/3"},
		{"not a log line [REGENT] x", "not a log line [REGENT] x"},
	} {
		if got := displayLogLine(tc.in, false); got != tc.want {
			t.Errorf("displayLogLine(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
	if got := displayLogLine(stamp+" [REGENT] x", true); got != orange+"[14:25:01]  🛡️  Regent: x"+reset {
		t.Errorf("in colour: %q", got)
	}
}

// A loop's output in the foreground: Regent lines get their time, the others pass unchanged,
// also when a line comes in pieces.
func TestRegentLinesWriter(t *testing.T) {
	var out bytes.Buffer
	w := regentLines(&out, false, func() time.Time { return time.Date(2026, 1, 2, 9, 8, 7, 0, time.Local) })
	for _, chunk := range []string{"[ralph] w: starting iteration 2/3\n🛡️  Regent: Tests ", "failed ❌ — reverting commit abc1234\n"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	want := "[ralph] w: starting iteration 2/3\n[09:08:07]  🛡️  Regent: Tests failed ❌ — reverting commit abc1234\n"
	if out.String() != want {
		t.Errorf("wrote %q; want %q", out.String(), want)
	}
	if colorFor(&out) {
		t.Error("colour for a buffer")
	}
}
