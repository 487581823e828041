package driver

import (
	"bytes"
	"encoding/binary"
	"os"
	"syscall"
)

// The loop's file watch on Linux: one inotify instance.

const fileEvents = syscall.IN_CREATE | syscall.IN_MOVED_TO | syscall.IN_CLOSE_WRITE | syscall.IN_DELETE

// watchFiles starts watching dirs; nil when the system cannot.
func watchFiles(dirs ...string) *fileWatch {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	for _, d := range dirs {
		if _, err := syscall.InotifyAddWatch(fd, d, fileEvents); err != nil {
			syscall.Close(fd)
			return nil
		}
	}
	fw := &fileWatch{file: os.NewFile(uintptr(fd), "inotify"), wake: make(chan struct{}, 1)}
	go fw.read()
	return fw
}

func (fw *fileWatch) read() {
	buf := make([]byte, 4096)
	for {
		n, err := fw.file.Read(buf)
		if n > 0 && tellsOfChange(buf[:n]) {
			notify(fw.wake)
		}
		if err != nil {
			return // closed
		}
	}
}

// tellsOfChange reports whether a read of inotify events holds one the loop must look at:
// not only the loop's own logs growing or its temporary files coming and going. On a full
// disk every write the loop tries (and fails) makes such events; were they to wake it, its
// pause between retries would end at once, and it would spin.
func tellsOfChange(events []byte) bool {
	const header = syscall.SizeofInotifyEvent
	for len(events) >= header {
		mask, size := binary.NativeEndian.Uint32(events[4:]), binary.NativeEndian.Uint32(events[12:])
		end := header + int(size)
		if end > len(events) {
			return true
		}
		name := string(bytes.TrimRight(events[header:end], "\x00"))
		if mask&syscall.IN_Q_OVERFLOW != 0 || !ownWrite(name) {
			return true
		}
		events = events[end:]
	}
	return false
}
