package swarm

import (
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/swarm/proc"
)

// processTable is what commands need from the operating system's processes; tests give
// commands one that acts on the fake tmux server's pretend processes instead.
type processTable interface {
	// Alive reports whether pid is live and, when start is not 0, started at start.
	Alive(pid int, start uint64) bool
	// KillGroup ends process group pgid: SIGTERM, grace, SIGKILL. It reports whether the
	// group had to be SIGKILLed.
	KillGroup(pgid int, grace time.Duration) bool
	// KillTagged ends every process started after mark (0: any) whose environment holds tag
	// (KEY=VALUE) and says how many there were: a worker's processes that left its group
	// (setsid, double fork) or outlived its window.
	KillTagged(tag string, mark int, grace time.Duration) int
	// Mark is a mark of the processes started so far (0 when there is none).
	Mark() int
	// Tagged lists the live processes carrying tag.
	Tagged(tag string) []int
}

// osProcesses is the real process table.
type osProcesses struct{}

func (osProcesses) Alive(pid int, start uint64) bool             { return proc.Alive(pid, start) }
func (osProcesses) KillGroup(pgid int, grace time.Duration) bool { return proc.KillGroup(pgid, grace) }
func (osProcesses) KillTagged(tag string, mark int, grace time.Duration) int {
	return proc.KillTagged(tag, mark, grace)
}
func (osProcesses) Mark() int               { return proc.Mark() }
func (osProcesses) Tagged(tag string) []int { return proc.Tagged(tag) }

// startProcess runs argv detached, in its own session and process group, under swarm's small
// wrapper that records the exit code when the program ends.
func startProcess(e *env, name, cwd string, envList, argv []string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	_ = os.Remove(e.dir.ExitPath(name))
	stdout, err := os.OpenFile(e.dir.LogPath(name, "stdout"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	defer stdout.Close()
	stderr, err := os.OpenFile(e.dir.LogPath(name, "stderr"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	defer stderr.Close()
	argv = append([]string{exe, "__run", "--exit-file", e.dir.ExitPath(name), "--"}, argv...)
	return startDetached(argv, cwd, envList, stdout, stderr)
}

// startDetached starts argv in a session of its own (so it leads its own process group and
// outlives the terminal), with stdin from /dev/null, and lets it go.
func startDetached(argv []string, dir string, env []string, stdout, stderr *os.File) (int, error) {
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
