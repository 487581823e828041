package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// Exited returns a channel that is closed when process pid ends, and what releases the watch
// (call it when no longer interested). It needs no polling: the kernel makes a pidfd readable
// when its process exits (Linux 5.3 and later), and the Go runtime waits for that with its
// other file descriptors. The channel is nil when pid cannot be watched so (an older kernel,
// a process already gone): the caller then polls.
func Exited(pid int) (<-chan struct{}, func()) {
	if pid <= 0 {
		return nil, func() {}
	}
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return nil, func() {}
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, func() {}
	}
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		polled := false
		// The first call only registers interest; the second comes once the pidfd is
		// readable (the process ended) or the file is closed.
		_ = rc.Read(func(uintptr) bool {
			if polled {
				return true
			}
			polled = true
			return false
		})
	}()
	return ch, func() { f.Close() }
}

// CanWatchExits reports whether Exited works here (a kernel with pidfds).
func CanWatchExits() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}
