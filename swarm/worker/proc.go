package worker

import (
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph/proc"
)

// ProcessTable is what the lifecycle needs from the operating system's processes; tests give
// a Machine one that acts on the fake tmux server's pretend processes instead.
type ProcessTable interface {
	// Alive reports whether pid is live and, when start is not 0, started at start.
	Alive(pid int, start uint64) bool
	// KillGroup ends process group pgid: SIGTERM, grace, SIGKILL. It reports whether the
	// group had to be SIGKILLed.
	KillGroup(pgid int, grace time.Duration) bool
	// KillGroups ends many process groups together: all are sent SIGTERM, then waited for
	// within the one grace, then SIGKILLed. It reports for each whether SIGKILL was needed.
	KillGroups(pgids []int, grace time.Duration) []bool
	// KillTagged ends every process started after mark (0: any) whose environment holds tag
	// (KEY=VALUE) and says how many there were: a worker's processes that left its group
	// (setsid, double fork) or outlived its window.
	KillTagged(tag string, mark int, grace time.Duration) int
	// KillTaggedEach is KillTagged of several tags at once, within the one grace; it says how
	// many there were of each.
	KillTaggedEach(tags []string, mark int, grace time.Duration) []int
	// Mark is a mark of the processes started so far (0 when there is none).
	Mark() int
	// Tagged lists the live processes carrying tag.
	Tagged(tag string) []int
}

// OSProcesses is the real process table.
type OSProcesses struct{}

func (OSProcesses) Alive(pid int, start uint64) bool             { return proc.Alive(pid, start) }
func (OSProcesses) KillGroup(pgid int, grace time.Duration) bool { return proc.KillGroup(pgid, grace) }
func (OSProcesses) KillTagged(tag string, mark int, grace time.Duration) int {
	return proc.KillTagged(tag, mark, grace)
}
func (OSProcesses) KillGroups(pgids []int, grace time.Duration) []bool {
	return proc.KillGroups(pgids, grace)
}
func (OSProcesses) KillTaggedEach(tags []string, mark int, grace time.Duration) []int {
	return proc.KillTaggedEach(tags, mark, grace)
}
func (OSProcesses) Mark() int               { return proc.Mark() }
func (OSProcesses) Tagged(tag string) []int { return proc.Tagged(tag) }

// RunWrapper is swarm's own process wrapper (swarm __run), started by absolute path: the
// parent of a process worker, and the script that records a tmux worker's exit code.
func RunWrapper() []string {
	exe, err := os.Executable()
	if err != nil {
		exe = "swarm"
	}
	return []string{exe, "__run"}
}

// startProcess runs argv detached, in its own session and process group, under swarm's small
// wrapper that records the exit code when the program ends.
func (m *Machine) startProcess(name, cwd string, envList, argv []string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	_ = os.Remove(m.dir.ExitPath(name))
	stdout, err := os.OpenFile(m.dir.LogPath(name, "stdout"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	defer stdout.Close()
	stderr, err := os.OpenFile(m.dir.LogPath(name, "stderr"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	defer stderr.Close()
	argv = append([]string{exe, "__run", "--exit-file", m.dir.ExitPath(name), "--"}, argv...)
	return StartDetached(argv, cwd, envList, stdout, stderr)
}

// StartDetached starts argv in a session of its own (so it leads its own process group and
// outlives the terminal), with stdin from /dev/null, and lets it go.
func StartDetached(argv []string, dir string, env []string, stdout, stderr *os.File) (int, error) {
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release()
	return pid, nil
}
