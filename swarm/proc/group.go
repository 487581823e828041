package proc

import (
	"errors"
	"syscall"
	"time"
)

// GroupAlive reports whether any non-zombie process remains in process group pgid. Zombies
// are ignored: an orphan that init has not reaped yet no longer runs anything.
func GroupAlive(pgid int) bool {
	if pgid <= 0 {
		return false
	}
	if err := syscall.Kill(-pgid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// The group's leader still running answers it without a look at every process.
	if letter, pg, _, ok := Stat(pgid); ok && pg == pgid && letter != 'Z' && letter != 'X' {
		return true
	}
	for _, pid := range pids() {
		letter, pg, _, ok := Stat(pid)
		if ok && pg == pgid && letter != 'Z' && letter != 'X' {
			return true
		}
	}
	return false
}

// KillGroup ends a whole process group: SIGTERM, up to grace for it to go, then SIGKILL. It
// returns once no process of the group is left (or a short while after SIGKILL), reporting
// whether SIGKILL was needed.
func KillGroup(pgid int, grace time.Duration) bool {
	if pgid <= 1 || !GroupAlive(pgid) {
		return false
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	// A stopped process never handles SIGTERM until continued.
	_ = syscall.Kill(-pgid, syscall.SIGCONT)
	if WaitGroupGone(pgid, grace) {
		return false
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	WaitGroupGone(pgid, 3*time.Second)
	return true
}

// WaitGroupGone waits up to d for the group to end and reports whether it did.
func WaitGroupGone(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	delay := 5 * time.Millisecond
	for {
		if !GroupAlive(pgid) {
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
