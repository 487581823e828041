//go:build linux

package proc

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// stat returns a process's state letter, process group and start time (clock ticks since
// boot). ok is false when the process does not exist or /proc is unavailable.
func stat(pid int) (stateLetter byte, pgrp int, start uint64, ok bool) {
	f := statFields(pid)
	if len(f) < 20 {
		return 0, 0, 0, false
	}
	pg, _ := strconv.Atoi(f[2])
	st, _ := strconv.ParseUint(f[19], 10, 64)
	return f[0][0], pg, st, true
}

// usage is a process's CPU time so far (user and system) and its resident memory in bytes.
func usage(pid int) (cpu time.Duration, rss int64) {
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
