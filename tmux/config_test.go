package tmux

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// swarm's server starts from Config: finished panes stay, and no status timer wakes the
// server while the Regent's control client is attached.
func TestServerStartsFromConfig(t *testing.T) {
	e := configuredServer(t, Config, "sleep 30")
	for option, want := range map[string]string{"remain-on-exit": "on", "status-interval": "0", "status-right": "#{=21:pane_title}"} {
		out, err := e.run(nil, "show-options", "-gv", option)
		if got := strings.TrimSpace(out); err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", option, got, err, want)
		}
	}
}

// The user's file is in effect on swarm's server (its prefix, say), but what swarm relies on
// survives a file that sets it otherwise, and a file with errors or none at all starts the
// server all the same.
func TestUserConfigCannotUndoSwarms(t *testing.T) {
	user := filepath.Join(t.TempDir(), "it's \"mine\" $HOME", "tmux.conf")
	if err := os.MkdirAll(filepath.Dir(user), 0o700); err != nil {
		t.Fatal(err)
	}
	hostile := `set -g prefix C-a
set -g remain-on-exit off
set -g history-limit 10
set -g status-interval 5
set -g exit-unattached on
set -g destroy-unattached on
set -g allow-rename on
set -g automatic-rename on
`
	for _, tc := range []struct{ name, file string }{{"hostile", hostile}, {"broken", hostile + "set -g nosuch-option 1\n{\n"}, {"none", ""}} {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(user)
			if tc.file != "" {
				if err := os.WriteFile(user, []byte(tc.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			e := configuredServer(t, ConfigWith(user), "sleep 30")
			want := map[string]string{"remain-on-exit": "on", "history-limit": "50000", "status-interval": "0",
				"exit-unattached": "off", "destroy-unattached": "off", "allow-rename": "off", "automatic-rename": "off"}
			if tc.name == "hostile" {
				want["prefix"] = "C-a"
			}
			for option, v := range want {
				out, err := e.run(nil, "show-options", "-gv", option)
				if got := strings.TrimSpace(out); err != nil || got != v {
					t.Errorf("%s = %q (%v), want %q", option, got, err, v)
				}
			}
		})
	}
}
