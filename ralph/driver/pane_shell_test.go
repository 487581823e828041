package driver

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
)

// No pane shell reads the pipe: nothing is written, and the caller knows it at once.
func TestTellPaneShellWithoutOne(t *testing.T) {
	pipe := filepath.Join(t.TempDir(), "w.host")
	if tellPaneShell(pipe, "x") {
		t.Error("told a host that does not exist (no pipe)")
	}
	if err := newPaneShellPipe(pipe); err != nil {
		t.Fatal(err)
	}
	if tellPaneShell(pipe, "x") {
		t.Error("told a host that does not exist (nobody reads the pipe)")
	}
}

// A new pane shell gets a new pipe, in place of a file or of an older pane shell's pipe with a
// line its pane shell left unread; nothing is ever written into a plain file.
func TestNewPaneShellPipeReplacesWhatWasThere(t *testing.T) {
	pipe := filepath.Join(t.TempDir(), "w.host")
	if err := os.WriteFile(pipe, []byte("kept?\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if tellPaneShell(pipe, "x") {
		t.Error("wrote to a plain file")
	}
	if data, _ := os.ReadFile(pipe); string(data) != "kept?\n" {
		t.Errorf("the file became %q", data)
	}
	if err := newPaneShellPipe(pipe); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(pipe)
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("not a private named pipe: %v %v", fi.Mode(), err)
	}
	// An ending pane shell still holds the pipe, with a line in it.
	old, err := os.OpenFile(pipe, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if !tellPaneShell(pipe, "stale") {
		t.Fatal("the old host's pipe took no line")
	}
	if err := newPaneShellPipe(pipe); err != nil {
		t.Fatal(err)
	}
	fresh, err := os.OpenFile(pipe, os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	// An empty pipe has nothing to read: the read waits until its deadline.
	_ = fresh.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := fresh.Read(make([]byte, 16)); n > 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the new pipe holds %d bytes (%v): the old host's line", n, err)
	}
}

// Without a terminal there is no job control: the pane shell runs its first agent as its own
// process (exec), so that ending the pane's group still ends the agent, and ends with it.
func TestPaneShellWithoutATerminalRunsTheAgentItself(t *testing.T) {
	dir := t.TempDir()
	pipe, note := filepath.Join(dir, "w.host"), filepath.Join(dir, "w.pid")
	script := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(script, []byte("echo \"$$ $PPID\" > "+words.ShellQuote(note)+"\nexit 5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := newPaneShellPipe(pipe); err != nil {
		t.Fatal(err)
	}
	argv := PaneShellArgv(PaneShellFiles{Pipe: pipe, Modes: filepath.Join(dir, "w.tty"), Exit: filepath.Join(dir, "w.exit")}, script)
	cmd := exec.Command(argv[0], argv[1:]...)
	// No terminal at all: a session of its own, /dev/null for its input and output.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 5 {
		t.Fatalf("host ended with %d (%v), want the agent's 5", code, err)
	}
	data, _ := os.ReadFile(note)
	own, _, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
	if own != strconv.Itoa(cmd.Process.Pid) {
		t.Errorf("the agent noted %q; the host's process was %d", data, cmd.Process.Pid)
	}
}

// A start script notes its own process and its parent's before anything else.
func TestLaunchNotesItsProcess(t *testing.T) {
	l := launchIn(t, []string{"PATH=" + os.Getenv("PATH")}, "sh", "-c", "exit 0")
	l.PIDFile = filepath.Join(filepath.Dir(l.Script), "pid")
	argv, err := l.Command()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	want := strconv.Itoa(cmd.Process.Pid) + " " + strconv.Itoa(os.Getpid()) + "\n"
	if data, _ := os.ReadFile(l.PIDFile); string(data) != want {
		t.Errorf("note %q, want %q", data, want)
	}
	data, _ := os.ReadFile(l.Script)
	if lines := strings.SplitN(string(data), "\n", 3); !strings.HasPrefix(lines[1], "read -r me ") {
		t.Errorf("the note is not the script's first command: %q", lines[1])
	}
}
