package tmux

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// swarm's server starts from Config: finished panes stay, and no status timer wakes the
// server while the Regent's control client is attached.
func TestServerStartsFromConfig(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	t.Setenv("TMUX_TMPDIR", dir)
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte(Config), 0o600); err != nil {
		t.Fatal(err)
	}
	e := &Exec{SocketName: fmt.Sprintf("swarm-conf-test-%d-%d", os.Getpid(), time.Now().UnixNano()), ConfigPath: conf}
	t.Cleanup(func() { _ = e.KillServer() })
	if _, err := e.run(nil, "new-session", "-d", "-s", "w", "sleep 30"); err != nil {
		t.Fatal(err)
	}
	for option, want := range map[string]string{"remain-on-exit": "on", "status-interval": "0", "status-right": "#{=21:pane_title}"} {
		out, err := e.run(nil, "show-options", "-gv", option)
		if got := strings.TrimSpace(out); err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", option, got, err, want)
		}
	}
}
