package state

import (
	"bytes"
	"encoding/binary"
	"os"
	"syscall"
)

// The kernel's side of a Watch on Linux: one inotify instance for its directories.

const watchEvents = syscall.IN_CREATE | syscall.IN_MOVED_TO | syscall.IN_MOVED_FROM |
	syscall.IN_CLOSE_WRITE | syscall.IN_DELETE | syscall.IN_DELETE_SELF

// watchKernel has inotify tell of changes to the wanted files of dirs; ok is false when it
// cannot (no instance left, a directory missing).
func watchKernel(dirs []string, wants func(string) bool, changed func()) (stop func(), ok bool) {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil, false
	}
	for _, d := range dirs {
		if _, err := syscall.InotifyAddWatch(fd, d, watchEvents); err != nil {
			syscall.Close(fd)
			return nil, false
		}
	}
	f := os.NewFile(uintptr(fd), "inotify")
	go func() {
		buf := make([]byte, 8192)
		for {
			n, err := f.Read(buf)
			if n > 0 && tellsOf(buf[:n], wants) {
				changed()
			}
			if err != nil {
				return // closed
			}
		}
	}()
	return func() { _ = f.Close() }, true
}

// tellsOf reports whether a read of inotify events holds one of a wanted file, of a watched
// directory itself (removed), or says events were lost.
func tellsOf(events []byte, wants func(string) bool) bool {
	const header = syscall.SizeofInotifyEvent
	for len(events) >= header {
		mask, size := binary.NativeEndian.Uint32(events[4:]), binary.NativeEndian.Uint32(events[12:])
		end := header + int(size)
		if end > len(events) {
			return true
		}
		name := string(bytes.TrimRight(events[header:end], "\x00"))
		if mask&(syscall.IN_Q_OVERFLOW|syscall.IN_DELETE_SELF|syscall.IN_IGNORED) != 0 || name != "" && wants(name) {
			return true
		}
		events = events[end:]
	}
	return false
}
