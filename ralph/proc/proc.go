package proc

import (
	"errors"
	"syscall"
	"time"
)

// Stat returns a process's state letter (R, S, Z, ...: a zombie is Z on every system), its
// process group and its start time (an opaque number that tells a process from a later one
// with its PID). ok is false when the process does not exist or cannot be read.
func Stat(pid int) (stateLetter byte, pgrp int, start uint64, ok bool) { return stat(pid) }

// Usage is a process's CPU time so far (user and system) and its resident memory in bytes;
// zero where the system does not tell (see usage).
func Usage(pid int) (cpu time.Duration, rss int64) { return usage(pid) }

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

// running reports a process that still runs something (not a zombie).
func running(pid int) bool {
	letter, _, _, ok := Stat(pid)
	return ok && letter != 'Z' && letter != 'X'
}

// Machine is the machine's 1-minute load average and the memory available to start programs
// in, in bytes; zero where it cannot be read.
func Machine() (load float64, avail int64) { return machine() }
