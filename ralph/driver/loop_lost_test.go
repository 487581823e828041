package driver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
)

// What became of a loop state file that cannot be read, one case per row.
func TestLostWhy(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(path string)
		want   string // in the reason; "" when the loop is gone and nothing is said
		setAsd bool   // something was moved aside
	}{
		{"a directory in its place", func(p string) { _ = os.Mkdir(p, 0o700) }, "was corrupt (kept as state.json.corrupt-", true},
		{"removed", func(p string) {}, "was removed while the loop ran", false},
		{"already set aside", func(p string) { _ = os.WriteFile(p+".corrupt-20260101T000000.000000000", []byte("x"), 0o600) },
			"was corrupt (kept as state.json.corrupt-20260101T000000.000000000)", true},
		{"the loop's directory is gone", func(p string) { _ = os.RemoveAll(filepath.Dir(p)) }, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "loop", "state.json")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			c.setup(path)
			why, ok := lostWhy(path)
			if ok != (c.want != "") || !strings.Contains(why, c.want) {
				t.Fatalf("lostWhy = %q, %v; want %q", why, ok, c.want)
			}
			moved, _ := filepath.Glob(path + ".corrupt-*")
			if (len(moved) > 0) != c.setAsd {
				t.Fatalf("set aside: %v", moved)
			}
			if _, err := os.Lstat(path); err == nil {
				t.Fatalf("something is still at %s", path)
			}
		})
	}
}

func TestStopMessageSaysAnUnreadableInboxIsNotEmpty(t *testing.T) {
	got := (&ralph.AgentMode{}).StopMessage(ralph.AgentInboxCorrupt)
	if got != "Inbox unreadable (ralph/inbox.jsonl). Agent stopping until it is fixed." {
		t.Fatalf("got %q", got)
	}
}
