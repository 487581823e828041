package state

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A loop's agents can run under a long-lived shell in the worker's pane (its pane shell)
// instead of a new pane process each: the pane's process is then the pane shell, and the agent
// is found through the file its start script writes as it begins.

// PaneShellPath is the named pipe a worker's pane shell takes the next agent's start script
// from. Its file keeps the older word (NAME.host): a pane shell started by an earlier swarm
// reads that pipe until it ends.
func (d *Dir) PaneShellPath(name string) string {
	return filepath.Join(d.Root, "logs", name+".host")
}

// PaneShellModesPath is where a worker's pane shell notes the terminal modes its pane began
// with.
func (d *Dir) PaneShellModesPath(name string) string {
	return filepath.Join(d.Root, "logs", name+".tty")
}

// InputLockPath is the lock held while something types into a worker's pane: typing is several
// steps (clear the line, paste, a pause, Enter), and two typists at once interleave them.
func (d *Dir) InputLockPath(name string) string {
	return filepath.Join(d.Root, "logs", name+".input.lock")
}

// TypingWait bounds how long a typist waits for another to finish typing into the same pane.
const TypingWait = 10 * time.Second

// LockInput takes the worker's input lock (InputLockPath) for one typist: swarm send, a
// heartbeat, a loop giving its agent the prompt. ok is false when another typist held it for
// TypingWait.
func (d *Dir) LockInput(name string) (l *Lock, ok bool, err error) {
	path := d.InputLockPath(name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, err
	}
	return LockWithin(path, TypingWait)
}

// AgentPIDPath is where the start script notes its process id and its parent's, as it begins.
func (d *Dir) AgentPIDPath(name string) string {
	return filepath.Join(d.Root, "logs", name+".pid")
}

// PaneShellAgent returns the process of the agent started by the pane shell whose process is
// shellPID (the pane's): the start script that last began, when its parent is that host. The
// script leads the agent's process group. ok is false when the pane's process runs its agent
// itself (or runs none yet).
func (d *Dir) PaneShellAgent(name string, shellPID int) (pid int, ok bool) {
	pid, parent, ok := d.AgentNote(name)
	if !ok || shellPID <= 0 || parent != shellPID {
		return 0, false
	}
	return pid, true
}

// AgentNote reads what the last start script noted as it began: its process id and its
// parent's. The script writes it in place, so a line is taken only once it is whole.
func (d *Dir) AgentNote(name string) (pid, parent int, ok bool) {
	data, err := ReadFile(d.AgentPIDPath(name))
	if err != nil {
		return 0, 0, false
	}
	line, _, whole := strings.Cut(string(data), "\n")
	own, up, two := strings.Cut(line, " ")
	if !whole || !two {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(own)
	parent, err2 := strconv.Atoi(up)
	if err1 != nil || err2 != nil || pid <= 0 || parent <= 0 {
		return 0, 0, false
	}
	return pid, parent, true
}
