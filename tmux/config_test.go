package tmux

import (
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
