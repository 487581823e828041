package tmux

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// What a control-mode capture returns is what a tmux process's capture returns, byte for
// byte, also for text show-buffer escapes (every printable character, and $ before each of
// them), and in a locale that is not UTF-8 (a Regent started from a script or cron).
func TestControlCaptureIsExecCapture(t *testing.T) {
	t.Setenv("LC_ALL", "C")
	var ascii, dollars []string
	for c := byte('!'); c <= '~'; c++ {
		ascii = append(ascii, string(c))
		dollars = append(dollars, "$"+string(c))
	}
	text := strings.Join([]string{strings.Join(ascii, ""), strings.Join(dollars, " "),
		`back\slash \101 \n \$X`, "tab\tand é ❯ 日本語 😀 e\u0301", "last-line"}, "\n")
	path := filepath.Join(t.TempDir(), "screen.txt")
	if err := os.WriteFile(path, []byte(text+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := realServer(t, "cat '"+path+"'; sleep 30")
	c, out := captureUntil(t, e, 10, "last-line")
	defer c.Close()
	// The line with the tab and the combining accent comes back as the terminal drew it:
	// compared below, with a tmux process's capture.
	for _, want := range strings.Split(text, "\n") {
		if !strings.HasPrefix(want, "tab") && !strings.Contains(out, want+"\n") {
			t.Errorf("capture through control mode lacks %q:\n%s", want, out)
		}
	}
	if viaExec, _ := e.Capture("%0", 10); viaExec != out {
		t.Errorf("control capture %q differs from exec capture %q", out, viaExec)
	}
}

func TestUnvis(t *testing.T) {
	for in, want := range map[string]string{
		``:                 ``,
		`plain`:            `plain`,
		`a\\b`:             `a\b`,
		`\t\a\b\v\f\r\n\s`: "\t\a\b\v\f\r\n ",
		`\033[0m\177`:      "\x1b[0m\x7f",
		`\303\251`:         "é",
		`\0x`:              "\x00x",
		`\q \8 end\`:       `\q \8 end\`,
		`\\101`:            `\101`,
		`\$WORK \${X} $1`:  `$WORK ${X} $1`,
	} {
		if got := unvis(in); got != want {
			t.Errorf("unvis(%q) = %q, want %q", in, got, want)
		}
	}
}

// A loop looks at a busy screen with its scrollback several times a second, for hours:
// those captures must not stay behind in the server. (tmux 3.3a keeps every capture-pane -p
// a control client asks for: 300 captures of 2000 lines grew it by 38 MB, all of them.)
func TestControlCapturesDoNotGrowTheServer(t *testing.T) {
	e := realServer(t, `i=0; while [ $i -lt 2100 ]; do echo "line $i of scrollback, long enough to weigh something in the server"; i=$((i+1)); done; sleep 60`)
	c, out := captureUntil(t, e, 2000, "line 2099 ")
	defer c.Close()
	if len(out) < 100_000 {
		t.Fatalf("the scrollback was not captured: %d bytes", len(out))
	}
	pid, err := e.run(nil, "display-message", "-p", "#{pid}")
	if err != nil {
		t.Fatal(err)
	}
	before := serverRSS(t, strings.TrimSpace(pid))
	for range 300 {
		if _, err := c.Capture("%0", 2000); err != nil {
			t.Fatal(err)
		}
	}
	grown := serverRSS(t, strings.TrimSpace(pid)) - before
	if captured := int64(300 * len(out)); grown > captured/10 {
		t.Errorf("the server grew by %d kB over 300 captures of %d kB", grown/1024, len(out)/1024)
	}
	if bufs, _ := e.run(nil, "list-buffers", "-F", "#{buffer_name}"); strings.Contains(bufs, "swarm-capture") {
		t.Errorf("capture buffers left behind: %q", bufs)
	}
}

// captureUntil attaches a control client to the test server's session and captures its pane
// (with history lines of scrollback) until the text holds want; the caller closes the client.
func captureUntil(t *testing.T, e *Exec, history int, want string) (*Control, string) {
	t.Helper()
	c, err := e.Control("w")
	if err != nil {
		t.Fatal(err)
	}
	var out string
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(out, want) {
		if out, err = c.Capture("%0", history); err != nil {
			c.Close()
			t.Fatal(err)
		}
	}
	return c, out
}

// serverRSS is the tmux server's resident memory in bytes.
func serverRSS(t *testing.T, pid string) int64 {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%s/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb * 1024
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
