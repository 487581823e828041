package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
)

// Run's two ways to the host, against a real sshd and master connection: each test holds both
// to the same account, the ssh client process being the way commands went before the master
// was asked directly.

// ways are the master's session (asked for here) and the ssh client process; the first fails
// the test when the master opens no session. Each connects first, as Run does: an
// interrupted run ends the master connection. They may run beside the test's goroutine.
func ways(t *testing.T, c *Conn) map[string]runner {
	return map[string]runner{
		"mux": func(ctx context.Context, line string, s Streams) (int, error) {
			if err := c.Connect(ctx); err != nil {
				return 0, err
			}
			code, err := c.runMux(ctx, line, s)
			if errors.Is(err, errNoMuxSession) {
				t.Errorf("the master opened no session: %v", err)
			}
			return code, err
		},
		"ssh": func(ctx context.Context, line string, s Streams) (int, error) {
			if err := c.Connect(ctx); err != nil {
				return 0, err
			}
			return c.runSSH(ctx, line, s)
		},
	}
}

func TestRunExitCodes(t *testing.T) {
	c := startSSHD(t).conn(t)
	for way, run := range ways(t, c) {
		for _, want := range []int{0, 3, 2} {
			code, err := runShell(context.Background(), run, fmt.Sprintf("exit %d", want), Streams{})
			if err != nil || code != want {
				t.Errorf("%s: exit %d: code %d, err %v", way, want, code, err)
			}
		}
	}
	code, err := c.Run(context.Background(), []string{"-c", "exit 3"}, Streams{})
	if err != nil || code != 3 {
		t.Fatalf("Run: code %d, err %v; want 3", code, err)
	}
}

// TestRunStatus255 is ssh's own failure: status 255, told by ssh's lines on stderr (held back
// from what the command said).
func TestRunStatus255(t *testing.T) {
	c := startSSHD(t).conn(t)
	script := `echo "said by the command" >&2; echo "ssh: connect to host box port 22: Connection refused" >&2; exit 255`
	for way, run := range ways(t, c) {
		var errs bytes.Buffer
		_, err := runShell(context.Background(), run, script, Streams{Stderr: &errs})
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindUnreachable {
			t.Errorf("%s: err = %v, want the host unreachable", way, err)
		}
		if errs.String() != "said by the command\n" {
			t.Errorf("%s: stderr %q", way, errs.String())
		}
	}
}

func TestRunStreams(t *testing.T) {
	c := startSSHD(t).conn(t)
	defer noFilesLeft(t, openFiles(t))
	script := `seq 1 200000; echo first >&2; seq 1 3 >&2`
	var want strings.Builder
	for i := 1; i <= 200000; i++ {
		fmt.Fprintln(&want, i)
	}
	for way, run := range ways(t, c) {
		var out, errs bytes.Buffer
		code, err := runShell(context.Background(), run, script, Streams{Stdout: &out, Stderr: &errs})
		if err != nil || code != 0 {
			t.Fatalf("%s: code %d, err %v", way, code, err)
		}
		if out.String() != want.String() {
			t.Errorf("%s: stdout has %d bytes, want the %d of seq", way, out.Len(), want.Len())
		}
		if errs.String() != "first\n1\n2\n3\n" {
			t.Errorf("%s: stderr %q", way, errs.String())
		}
		// A file is handed to the host's command as it is.
		file, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := runShell(context.Background(), run, script, Streams{Stdout: file, Stderr: io.Discard}); err != nil {
			t.Fatalf("%s: %v", way, err)
		}
		file.Close()
		if got, _ := os.ReadFile(file.Name()); string(got) != want.String() {
			t.Errorf("%s: the file has %d bytes, want the %d of seq", way, len(got), want.Len())
		}
	}
}

func TestRunStdin(t *testing.T) {
	c := startSSHD(t).conn(t)
	data := bytes.Repeat([]byte("what the command reads\n"), 50000)
	path := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for way, run := range ways(t, c) {
		file, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []io.Reader{bytes.NewReader(data), file} {
			var out bytes.Buffer
			code, err := runShell(context.Background(), run, "cat; echo end", Streams{Stdin: in, Stdout: &out, Stderr: io.Discard})
			if err != nil || code != 0 || !bytes.Equal(out.Bytes(), append(data, "end\n"...)) {
				t.Errorf("%s: %T: code %d, err %v, %d bytes out of %d", way, in, code, err, out.Len(), len(data)+4)
			}
		}
		file.Close()
	}
}

// TestRunHoldsStdinOpen is a command without Stdin: it reads a pipe that stays open while it
// runs, and sees its end (not a signal) when the run is interrupted.
func TestRunHoldsStdinOpen(t *testing.T) {
	c := startSSHD(t).conn(t)
	defer noFilesLeft(t, openFiles(t))
	for way, run := range ways(t, c) {
		dir := t.TempDir()
		started, ended := filepath.Join(dir, "started"), filepath.Join(dir, "ended")
		script := fmt.Sprintf("touch %s; cat; echo $? > %s", words.ShellWord(started), words.ShellWord(ended))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := runShell(ctx, run, script, Streams{Stdout: io.Discard, Stderr: io.Discard})
			done <- err
		}()
		until(t, 10*time.Second, way+": the command starts", func() bool { return exists(started) })
		select {
		case err := <-done:
			t.Fatalf("%s: the command ended with its input open: %v", way, err)
		default:
		}
		cancel()
		var e *Error
		if err := <-done; !errors.As(err, &e) || e.Kind != KindUnreachable {
			t.Errorf("%s: interrupted: err = %v, want no answer within the time limit", way, err)
		}
		until(t, 10*time.Second, way+": cat sees the end of its input", func() bool { return exists(ended) })
		if got, _ := os.ReadFile(ended); string(got) != "0\n" {
			t.Errorf("%s: cat ended with %q, want 0", way, got)
		}
	}
}

// TestRunInterrupted is a run whose context ends: it returns at once, and the host's command,
// writing on, ends too.
func TestRunInterrupted(t *testing.T) {
	c := startSSHD(t).conn(t)
	defer noFilesLeft(t, openFiles(t))
	for way, run := range ways(t, c) {
		pidFile := filepath.Join(t.TempDir(), "pid")
		script := fmt.Sprintf("echo $$ > %s; while :; do echo more; sleep 0.05; done", words.ShellWord(pidFile))
		ctx, cancel := context.WithCancel(context.Background())
		out := &firstWrite{seen: make(chan struct{})}
		done := make(chan error, 1)
		go func() {
			_, err := runShell(ctx, run, script, Streams{Stdin: strings.NewReader(""), Stdout: out, Stderr: io.Discard})
			done <- err
		}()
		<-out.seen
		cancel()
		select {
		case err := <-done:
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindUnreachable {
				t.Errorf("%s: err = %v, want no answer within the time limit", way, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the run goes on after its context ended", way)
		}
		pid, _ := os.ReadFile(pidFile)
		until(t, 10*time.Second, way+": the host's command ends", func() bool {
			return !exists("/proc/" + strings.TrimSpace(string(pid)))
		})
	}
}

// TestRunEnvironment: the host's command has what SendEnv and SetEnv give it, nothing else.
func TestRunEnvironment(t *testing.T) {
	c := startSSHD(t).conn(t)
	t.Setenv("SWARM_MUX_TEST_SENT", "sent")
	t.Setenv("SWARM_MUX_TEST_KEPT", "not for the host")
	for way, run := range ways(t, c) {
		var out bytes.Buffer
		if _, err := runShell(context.Background(), run, "env | grep ^SWARM_MUX_TEST_ | sort", Streams{Stdout: &out}); err != nil {
			t.Fatalf("%s: %v", way, err)
		}
		if want := "SWARM_MUX_TEST_SENT=sent\nSWARM_MUX_TEST_SET=from-config\n"; out.String() != want {
			t.Errorf("%s: the host's environment has\n%s\nwant\n%s", way, out.String(), want)
		}
	}
}

// firstWrite tells its first write.
type firstWrite struct {
	seen chan struct{}
	once bool
}

func (w *firstWrite) Write(p []byte) (int, error) {
	if !w.once {
		w.once = true
		close(w.seen)
	}
	return len(p), nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// noFilesLeft fails the test when more files are open than before.
func noFilesLeft(t *testing.T, before int) {
	if after := openFiles(t); after > before {
		t.Errorf("%d files open after the runs, %d before", after, before)
	}
}
