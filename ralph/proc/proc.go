package proc

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Stat returns a process's state letter, process group and start time (clock ticks since
// boot). ok is false when the process does not exist or /proc is unavailable.
func Stat(pid int) (stateLetter byte, pgrp int, start uint64, ok bool) {
	f := statFields(pid)
	if len(f) < 20 {
		return 0, 0, 0, false
	}
	pg, _ := strconv.Atoi(f[2])
	st, _ := strconv.ParseUint(f[19], 10, 64)
	return f[0][0], pg, st, true
}

// Usage is a process's CPU time so far (user and system) and its resident memory in bytes.
func Usage(pid int) (cpu time.Duration, rss int64) {
	f := statFields(pid)
	if len(f) < 22 {
		return 0, 0
	}
	// Clock ticks: USER_HZ is 100 on Linux.
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	pages, _ := strconv.ParseInt(f[21], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond, pages * int64(os.Getpagesize())
}

// statFields are the fields of /proc/PID/stat after the command name (the state first); nil
// when the process does not exist or /proc is unavailable.
func statFields(pid int) []string {
	var buf [512]byte
	data, ok := readProcFile(procPath(pid, "stat"), buf[:])
	if !ok {
		return nil
	}
	// The command name is in parentheses and may itself contain spaces or ')'.
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 || end+2 >= len(s) {
		return nil
	}
	return strings.Fields(s[end+2:])
}

// Start is the start time that tells a live process from a later one that reused its PID.
func Start(pid int) uint64 {
	_, _, st, _ := Stat(pid)
	return st
}

// Alive reports whether pid names a live (not zombie) process; when start is non-zero the
// process must also have started at that time, so a reused PID does not count.
func Alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	if letter, _, st, ok := Stat(pid); ok {
		if letter == 'Z' || letter == 'X' {
			return false
		}
		return start == 0 || st == start
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// listPIDs is how a group's members are looked for (a test counts the looks).
var listPIDs = pids

// PIDs lists the processes running now (this one among them).
func PIDs() []int { return pids() }

// pids lists the processes in /proc.
func pids() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	// Names only: no sorting, no look at each entry.
	names, _ := d.Readdirnames(-1)
	out := make([]int, 0, len(names))
	for _, name := range names {
		if pid, err := strconv.Atoi(name); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// running reports a process that still runs something (not a zombie).
func running(pid int) bool {
	letter, _, _, ok := Stat(pid)
	return ok && letter != 'Z' && letter != 'X'
}
