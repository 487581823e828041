package driver

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"syscall"
	"time"
)

// Watching a loop's files: the kernel (inotify) tells the loop when a file in its directory or
// in the shared limits directory is written, made or removed: a command that paused, resumed
// or killed it, a DONE file, a damaged state file, another loop's usage limit. The loop reads
// its files then instead of polling them often; StatusPoll remains as the safety net. Where the
// kernel cannot tell, the files are read every fallbackStatusPoll at least.

// fileWatch is one inotify instance watching a loop's directories.
type fileWatch struct {
	file *os.File
	wake chan struct{} // one pending wake-up: something changed since the loop last waited
}

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

// ownWrite reports whether a file of that name in the loop's directory changes only by the
// loop's own writing: its logs (and their rotated copies), and the temporary files an
// atomic write makes before it renames them into place (the rename itself is told).
func ownWrite(name string) bool {
	if strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-") {
		return true
	}
	base, _ := strings.CutSuffix(name, ".1")
	return base == "monitor.log" || base == "iterations.log" || base == "iterations.jsonl"
}

// changed yields when the files changed; never for no watch.
func (fw *fileWatch) changed() <-chan struct{} {
	if fw == nil {
		return nil
	}
	return fw.wake
}

func (fw *fileWatch) close() {
	if fw != nil {
		_ = fw.file.Close()
	}
}

// fallbackStatusPoll is how often a loop whose files are not watched reads them at least.
const fallbackStatusPoll = 5 * time.Second

// watchOwnFiles starts the loop's file watch: its directory, its box (where the agent's
// signals and DONE file come) and the limits directory, made for it.
func (l *Loop) watchOwnFiles() *fileWatch {
	_ = os.MkdirAll(limitsDir(l.cfg.Workers.Root), 0o700)
	_ = os.MkdirAll(l.cfg.Dir.AgentBox(), 0o700)
	return watchFiles(l.cfg.Dir.Path, l.cfg.Dir.AgentBox(), limitsDir(l.cfg.Workers.Root))
}

// statusPoll is how often the loop reads its files when nothing told it they changed.
func (l *Loop) statusPoll() time.Duration {
	if l.files == nil {
		return min(l.cfg.StatusPoll, fallbackStatusPoll)
	}
	return l.cfg.StatusPoll
}
