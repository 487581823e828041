package tmux

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// waitBytes returns the content of path once it exists and holds n bytes (or what it holds
// at the deadline).
func waitBytes(t *testing.T, path string, n int) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var data []byte
	for time.Now().Before(deadline) {
		var err error
		if data, err = os.ReadFile(path); err == nil && len(data) >= n {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return string(data)
}

// rawCatPane starts a server whose pane's program copies what it reads into the file out, on
// a raw terminal: it hands the program every byte as typed, nothing is cooked on the way. It
// returns once the terminal is raw (before, a carriage return would become a line feed), with
// a control client that closes with the test.
func rawCatPane(t *testing.T) (e *Exec, c *Control, out string) {
	t.Helper()
	dir := t.TempDir()
	out = filepath.Join(dir, "got")
	ready := filepath.Join(dir, "ready")
	e = realServer(t, "stty raw -echo; touch "+ready+"; exec cat > "+out)
	c, err := e.Control("w")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	waitBytes(t, ready, 0)
	if _, err := os.Stat(ready); err != nil {
		t.Fatal("the terminal was not made raw")
	}
	return e, c, out
}

// A paste through the control client reaches the program byte for byte, whatever tmux's
// parser would make of the text; the keys after it arrive as keys.
func TestControlPastesExactly(t *testing.T) {
	e, c, out := rawCatPane(t)
	text := "-starts like a flag\n'single' \"double\" `back` $HOME ~ ~/x #{pane_id} #(echo no) ;\n" +
		"{ braces } \\ \\n \\047 tab\there cr\rthere \x1b[31mred\x1b[0m é ✓ %begin 1 2 1\n%end 1 2 1\nlast"
	if err := c.Paste("%0", text, false); err != nil {
		t.Fatal(err)
	}
	if err := c.SendKeys("%0", "Enter", "Tab"); err != nil {
		t.Fatal(err)
	}
	want := text + "\r\t"
	if got := waitBytes(t, out, len(want)); got != want {
		t.Errorf("the program got\n%q\nwant\n%q", got, want)
	}
	if err := c.Paste("%0", "nul\x00", false); !errors.Is(err, ErrUnquotable) {
		t.Errorf("a text with a NUL byte: %v, want ErrUnquotable", err)
	}
	if err := c.Paste("%999", "x", false); !errors.Is(err, ErrNoPane) {
		t.Errorf("missing pane: %v, want ErrNoPane", err)
	}
	if err := c.SendKeys("%0; kill-server", "Enter"); err == nil {
		t.Error("an id that is not a pane was sent")
	}
	// Nothing is left behind: the buffer of the failed paste is gone too.
	if bufs, err := e.run(nil, "list-buffers", "-F", "#{buffer_name}"); err != nil || bufs != "" {
		t.Errorf("buffers left: %q (%v)", bufs, err)
	}
}
