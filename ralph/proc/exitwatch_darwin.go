package proc

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// The decoding's values are this system's (a build here fails when they are not).
const (
	_ = uint64(evfiltProc - unix.EVFILT_PROC)
	_ = uint64(unix.EVFILT_PROC - evfiltProc)
	_ = uint64(evError - unix.EV_ERROR)
	_ = uint64(unix.EV_ERROR - evError)
	_ = uint64(noteExit - unix.NOTE_EXIT)
	_ = uint64(unix.NOTE_EXIT - noteExit)
)

// Exited returns a channel that is closed when process pid ends, and what releases the watch
// (call it when no longer interested). It needs no polling: a kqueue of its own watches the
// process (EVFILT_PROC, NOTE_EXIT) and becomes readable when it ends, and the Go runtime
// waits for that with its other file descriptors. The channel is nil when pid cannot be
// watched so (a process already gone): the caller then polls.
func Exited(pid int) (<-chan struct{}, func()) {
	none := func() {}
	if pid <= 0 {
		return nil, none
	}
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, none
	}
	unix.CloseOnExec(kq)
	var watch unix.Kevent_t
	unix.SetKevent(&watch, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	watch.Fflags = unix.NOTE_EXIT
	if _, err := unix.Kevent(kq, []unix.Kevent_t{watch}, nil, nil); err != nil || unix.SetNonblock(kq, true) != nil {
		unix.Close(kq) // ESRCH: gone already
		return nil, none
	}
	f := os.NewFile(uintptr(kq), "kqueue")
	rc, err := f.SyscallConn()
	// A file the runtime cannot wait on takes no deadline: reading it would not wait.
	if err != nil || f.SetReadDeadline(time.Time{}) != nil {
		f.Close()
		return nil, none
	}
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		// Each call takes what the kqueue holds without waiting; the runtime calls again once
		// it is readable. It ends on the exit, or with an error when the file is closed.
		_ = rc.Read(func(fd uintptr) bool {
			var got [4]unix.Kevent_t
			n, err := unix.Kevent(int(fd), nil, got[:], &unix.Timespec{})
			if err != nil {
				return err != unix.EINTR
			}
			events := make([]kevent, n)
			for i, ev := range got[:n] {
				events[i] = kevent{ident: uint64(ev.Ident), filter: ev.Filter, flags: ev.Flags, fflags: ev.Fflags}
			}
			return endTold(events, pid)
		})
	}()
	return ch, func() { f.Close() }
}

// CanWatchExits reports whether Exited works here (a kqueue can be made).
func CanWatchExits() bool {
	kq, err := unix.Kqueue()
	if err != nil {
		return false
	}
	unix.Close(kq)
	return true
}
