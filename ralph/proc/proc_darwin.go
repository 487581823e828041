//go:build darwin

package proc

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// stat asks the kernel for the process's kinfo_proc.
func stat(pid int) (stateLetter byte, pgrp int, start uint64, ok bool) {
	if pid <= 0 {
		return 0, 0, 0, false
	}
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(k.Proc.P_pid) != pid {
		return 0, 0, 0, false
	}
	st := k.Proc.P_starttime
	return darwinLetter(k.Proc.P_stat), int(k.Eproc.Pgid), darwinStart(int64(st.Sec), int64(st.Usec)), true
}

// usage tells this process's own use only: macOS gives another's through libproc, which Go
// reaches only with cgo. Its memory is the most it was resident at (ru_maxrss, in bytes there).
func usage(pid int) (cpu time.Duration, rss int64) {
	if pid != os.Getpid() {
		return 0, 0
	}
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return cpu, ru.Maxrss
}

// pids asks the kernel for every process at once.
func pids() []int {
	all, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	out := make([]int, 0, len(all))
	for _, k := range all {
		if k.Proc.P_pid > 0 {
			out = append(out, int(k.Proc.P_pid))
		}
	}
	return out
}
