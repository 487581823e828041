package swarm

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// processTable is what commands need from the operating system's processes; tests give
// commands one that acts on the fake tmux server's pretend processes instead.
type processTable interface {
	// Alive reports whether pid is live and, when start is not 0, started at start.
	Alive(pid int, start uint64) bool
	// KillGroup ends process group pgid: SIGTERM, grace, SIGKILL. It reports whether the
	// group had to be SIGKILLed.
	KillGroup(pgid int, grace time.Duration) bool
}

// osProcesses is the real process table.
type osProcesses struct{}

func (osProcesses) Alive(pid int, start uint64) bool             { return processAlive(pid, start) }
func (osProcesses) KillGroup(pgid int, grace time.Duration) bool { return killGroup(pgid, grace) }

// procStat returns a process's state letter, process group and start time (clock ticks since
// boot) from /proc. ok is false when the process does not exist or /proc is unavailable.
func procStat(pid int) (stateLetter byte, pgrp int, start uint64, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	// The command name is in parentheses and may itself contain spaces or ')'.
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 || end+2 >= len(s) {
		return 0, 0, 0, false
	}
	f := strings.Fields(s[end+2:])
	if len(f) < 20 {
		return 0, 0, 0, false
	}
	pg, _ := strconv.Atoi(f[2])
	st, _ := strconv.ParseUint(f[19], 10, 64)
	return f[0][0], pg, st, true
}

// processStart is the start time used to tell a live process from a later one that reused its PID.
func processStart(pid int) uint64 {
	_, _, st, ok := procStat(pid)
	if !ok {
		return 0
	}
	return st
}

// processAlive reports whether pid names a live (not zombie) process; when start is non-zero
// the process must also have started at that time, so a reused PID does not count.
func processAlive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	if letter, _, st, ok := procStat(pid); ok {
		if letter == 'Z' || letter == 'X' {
			return false
		}
		return start == 0 || st == start
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// groupAlive reports whether any non-zombie process remains in process group pgid. Zombies are
// ignored: an orphan that init has not reaped yet no longer runs anything.
func groupAlive(pgid int) bool {
	if pgid <= 0 {
		return false
	}
	if err := syscall.Kill(-pgid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		letter, pg, _, ok := procStat(pid)
		if ok && pg == pgid && letter != 'Z' && letter != 'X' {
			return true
		}
	}
	return false
}

// killGroup ends a whole process group: SIGTERM, up to grace for it to go, then SIGKILL. It
// returns once no process of the group is left (or a short while after SIGKILL), reporting
// whether SIGKILL was needed.
func killGroup(pgid int, grace time.Duration) bool {
	if pgid <= 1 {
		return false
	}
	if !groupAlive(pgid) {
		return false
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	// A stopped process never handles SIGTERM until continued.
	_ = syscall.Kill(-pgid, syscall.SIGCONT)
	if waitGroupGone(pgid, grace) {
		return false
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	waitGroupGone(pgid, 3*time.Second)
	return true
}

func waitGroupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	delay := 5 * time.Millisecond
	for {
		if !groupAlive(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(delay)
		if delay < 50*time.Millisecond {
			delay *= 2
		}
	}
}

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
