package tmux

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// waitFile returns the content of path once a program has written it whole (its last line).
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(data), "end\n") {
			return string(data)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s was not written", path)
	return ""
}

// A respawn through the control client starts the program with its arguments exactly as a
// tmux process does: nothing in them is read as tmux syntax.
func TestControlRespawnsAsExecDoes(t *testing.T) {
	e := realServer(t, `sleep 30`)
	c, err := e.Control("w")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dir := t.TempDir()
	args := []string{"a b", "$HOME", "~", "#{pane_id}", "semi;", ";", "{", "}", `back\slash`, `"dq"`, "%0", "",
		"it's", "'", `'"'`, "two\nlines", "cr\r", "\\n", "end"}
	script := `printf "%s\n" "$(pwd)" "$@" > "$0.tmp" && mv "$0.tmp" "$0"; exec sleep 30`
	spec := func(out string) Spec {
		return Spec{Cwd: dir, Argv: append([]string{"sh", "-c", script, out}, args...), ID: "w-2", ClearHistory: true}
	}
	viaControl := filepath.Join(dir, "control")
	p, err := c.Respawn("%0", spec(viaControl))
	if err != nil {
		t.Fatal(err)
	}
	if p.ID != "%0" || p.PID == 0 || p.Dead || p.SwarmID != "w-2" {
		t.Errorf("pane after the respawn: %+v", p)
	}
	got := waitFile(t, viaControl)
	if want := dir + "\n" + strings.Join(args, "\n") + "\n"; got != want {
		t.Errorf("the program got\n%q\nwant\n%q", got, want)
	}
	viaExec := filepath.Join(dir, "exec")
	if _, err := e.Respawn("%0", spec(viaExec)); err != nil {
		t.Fatal(err)
	}
	if fromExec := waitFile(t, viaExec); fromExec != got {
		t.Errorf("through a tmux process the program got\n%q\nthrough control mode\n%q", fromExec, got)
	}

	if _, err := c.Respawn("%0", Spec{Argv: []string{"echo", "nul\x00"}}); !errors.Is(err, ErrUnquotable) {
		t.Errorf("an argument with a NUL byte: %v, want ErrUnquotable", err)
	}
	if _, err := c.Respawn("%999", Spec{Argv: []string{"true"}}); !errors.Is(err, ErrNoPane) {
		t.Errorf("missing pane: %v", err)
	}
	if _, err := c.Respawn("%0; kill-server", Spec{Argv: []string{"true"}}); err == nil {
		t.Error("an id that is not a pane was sent")
	}
}
