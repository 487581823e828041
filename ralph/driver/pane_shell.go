package driver

import (
	"errors"
	"os"
	"syscall"
)

// A loop's pane keeps one long-lived shell, the pane shell, which starts each iteration's
// agent itself. A respawned pane costs the tmux server a fork and two runs of its utmp helper,
// and fifty loops restarting every few seconds spend most of the machine on that; a write to
// the pane shell's named pipe costs a shell's fork.
//
// The pane shell runs each agent's script in a subshell of its own, a job (job control: the
// agent leads its own process group and has the terminal), so that ending the agent's group
// leaves the pane shell; a subshell is a fork of the pane shell, not a new shell to start.
// Before the next agent it leaves the alternate screen, resets the terminal and clears the
// scrollback (what a new pane would be), not before: the loop keeps the last agent's screen.
// Told "exit", or when its pipe is gone, the pane shell ends with the last agent's exit
// status, as the pane would have with no host. Without job control (no terminal) it runs its
// first agent as the pane's process, and the next iteration respawns the pane.
//
// An agent's script gives way to the agent (exec), and the pane shell records the agent's exit
// code in the exit file, unless the script did (it could not start the agent); the pane shell
// empties the file before each agent, so that no code recorded late stands for the next one.
//
// The terminal modes the pane began with (an agent may leave it raw) are put back by the loop,
// from what the pane shell noted as it began (stty -g, in a file of its own): an stty per
// agent is a process fifty loops feel. Told "modes" first, the pane shell puts them back
// itself.
const paneShellScript = `set -m 2>/dev/null
case $- in *m*) ;; *) exec /bin/sh "$2" ;; esac
exec 3<>"$1"
tty=$(stty -g 2>/dev/null) && printf '%s\n' "$tty" > "$3"
s=$2
while :; do
	: > "$4"
	(. "$s") 3<&-
	code=$?
	[ -s "$4" ] || printf '%s\n' "$code" > "$4"
	IFS= read -r s <&3 || exit "$code"
	[ "$s" != exit ] || exit "$code"
	if [ "$s" = modes ]; then
		[ -z "$tty" ] || stty "$tty" 2>/dev/null
		IFS= read -r s <&3 || exit "$code"
	fi
	printf '\033[?1049l\033c\033[3J'
done`

// paneShellExit is what tells a pane shell to end once its agent has; paneShellModes, to put
// back the terminal modes itself before the next.
const (
	paneShellExit  = "exit"
	paneShellModes = "modes"
)

// PaneShellFiles are the files a pane shell works with.
type PaneShellFiles struct {
	Pipe  string // the named pipe it reads the next start script from
	Modes string // where it notes the terminal modes it began with
	Exit  string // where it records how each agent ended (the worker's exit file)
}

// PaneShellArgv is the pane command of a pane shell that begins with script first. Like a
// start script's own command, it runs on an empty environment. Its name in a process listing,
// swarm-host, is the one the guides give (commands.md, faults.md), kept as the older word.
func PaneShellArgv(f PaneShellFiles, first string) []string {
	return []string{"env", "-i", "/bin/sh", "-c", paneShellScript, "swarm-host", f.Pipe, first, f.Modes, f.Exit}
}

// newPaneShellPipe makes a new named pipe for a new pane shell, in place of whatever was
// there: a pane shell that is ending may still hold the old one open with lines unread, and
// the new pane shell must not read them.
func newPaneShellPipe(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return syscall.Mkfifo(path, 0o600)
}

// tellPaneShell writes one line to the pane shell reading pipe, and reports whether one read
// it: the open fails at once when no pane shell holds the pipe open. A line is shorter than
// the pipe's atomic write size, so it arrives whole.
func tellPaneShell(pipe, line string) bool {
	f, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return false
	}
	_, err = f.WriteString(line + "\n")
	return err == nil
}
