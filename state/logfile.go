package state

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Logs grow a line at a time, each line in one write under the file's flock, so concurrent
// writers never interleave within a line; a line a writer left torn (it died mid-line, or a
// full disk cut its write short) is closed with a mark, so the next entry starts on a line of
// its own and readers tell the torn one apart. A log can be bounded (rotated to NAME.1 once it
// would grow past its size: what it holds is then its last Max bytes at least, and at most
// twice that), and swarm's own logs, which only tell what happened, leave the last LogRoom of
// the disk to the records a recovery needs (a loop's state, its iteration records).

// Log is a file that grows a line at a time.
type Log struct {
	Path string
	// Max bounds the file: a line that would take it past Max bytes first moves it to
	// Path.1 (replacing the one there) and starts it afresh; 0 never does.
	Max int64
	// Mark closes a line a writer left torn.
	Mark string
	// Spare leaves LogRoom of the file system free: a line that would take it is left out
	// (ErrLogRoom).
	Spare bool
}

// TornMark ends a log line whose writer stopped mid-line (killed, a full disk): the next
// entry starts on a line of its own, and readers tell the torn one from a whole entry by it.
const TornMark = " [torn]"

// LogRoom is what swarm's own logs leave free on a nearly full disk: room for the loops'
// state files (and the copies their atomic writes make) and their iteration records.
const LogRoom = 32 << 10

// ErrLogRoom means a line of one of swarm's own logs was left out: the disk is nearly full.
var ErrLogRoom = errors.New("line left out of the log: the disk is nearly full")

// Rotated is where a bounded log's older lines are: path.1.
func Rotated(path string) string { return path + ".1" }

// AppendLine appends one line to a log file that is never rotated.
func AppendLine(path, line string) error { return Log{Path: path}.Append(line) }

// rotateTries bounds how often an append finds the file rotated under it (by another writer)
// before it writes where it is.
const rotateTries = 8

// Append adds line (a newline is added when it has none) to the log.
func (l Log) Append(line string) error {
	if len(line) == 0 || line[len(line)-1] != '\n' {
		line += "\n"
	}
	for try := 1; ; try++ {
		fd, err := l.openLocked()
		if err != nil {
			return err
		}
		moved, err := l.rotateFor(fd, int64(len(line)), try < rotateTries)
		if err == nil && !moved {
			err = l.write(fd, line)
		}
		_ = unix.Close(fd)
		if err != nil || !moved {
			return err
		}
	}
}

// openLocked opens the log and takes its flock: appenders take turns, so the look at its last
// byte and its size never sees a line another appender is still writing.
func (l Log) openLocked() (int, error) {
	fd, err := openFile(l.Path, unix.O_RDWR|unix.O_APPEND|unix.O_CREAT, 0o600)
	if err != nil {
		return -1, err
	}
	for err = unix.Flock(fd, unix.LOCK_EX); errors.Is(err, unix.EINTR); err = unix.Flock(fd, unix.LOCK_EX) {
	}
	if err != nil {
		_ = unix.Close(fd)
		return -1, &os.PathError{Op: "flock", Path: l.Path, Err: err}
	}
	return fd, nil
}

// rotateFor makes room for n bytes in a bounded log open at fd (its flock held): when the file
// was rotated by another writer since it was opened, or is rotated now, moved is true and the
// caller opens it again. With may false it writes where it is.
func (l Log) rotateFor(fd int, n int64, may bool) (moved bool, err error) {
	if l.Max <= 0 || !may {
		return false, nil
	}
	if rotated, err := l.rotatedSince(fd); err != nil || rotated {
		return rotated, nil // rotated (or removed) by another writer meanwhile
	}
	var open unix.Stat_t
	if unix.Fstat(fd, &open) != nil || open.Size == 0 || open.Size+n <= l.Max {
		return false, nil
	}
	if err := os.Rename(l.Path, Rotated(l.Path)); err != nil {
		return false, err
	}
	return true, nil
}

// write appends line at fd, closing a torn last line first, unless the disk is too full for
// a log that spares it.
func (l Log) write(fd int, line string) error {
	// A writer that died mid-line (or a full disk) left a half line: start on a fresh one so
	// the torn line stays alone and this entry stays whole.
	if endsMidLine(fd) {
		line = l.Mark + "\n" + line
	}
	if l.Spare && !RoomFor(filepath.Dir(l.Path), int64(len(line))) {
		return ErrLogRoom
	}
	return writeAll(fd, []byte(line), l.Path)
}

// RoomFor reports whether the file system of dir keeps LogRoom free after n more bytes of what
// only tells what happened (a log line, a screen kept to look back at); when it cannot tell,
// it says there is room.
func RoomFor(dir string, n int64) bool {
	var fs unix.Statfs_t
	if unix.Statfs(dir, &fs) != nil {
		return true
	}
	return int64(fs.Bavail)*int64(fs.Bsize) >= LogRoom+n
}

// endsMidLine reports whether the file open at fd ends in something other than a newline.
func endsMidLine(fd int) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Size == 0 {
		return false
	}
	last := make([]byte, 1)
	n, err := unix.Pread(fd, last, st.Size-1)
	return err == nil && n == 1 && last[0] != '\n'
}

// ReadLog reads a bounded log whole: its rotated part, then the rest. The file is read under
// its flock, so a rotation cannot come between the two reads.
func ReadLog(path string) ([]byte, error) {
	l := Log{Path: path}
	for try := 1; ; try++ {
		fd, err := openFile(path, unix.O_RDONLY, 0)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
			// Only the rotated part (a writer is about to start the file afresh), or nothing.
			return ReadFile(Rotated(path))
		}
		for err = unix.Flock(fd, unix.LOCK_SH); errors.Is(err, unix.EINTR); err = unix.Flock(fd, unix.LOCK_SH) {
		}
		if moved, _ := l.rotatedSince(fd); moved && try < rotateTries {
			_ = unix.Close(fd)
			continue
		}
		older, err := ReadFile(Rotated(path))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			_ = unix.Close(fd)
			return nil, err
		}
		cur, err := readFD(fd, path)
		_ = unix.Close(fd)
		return append(older, cur...), err
	}
}

// rotatedSince reports whether the log open at fd is no longer the file at its path.
func (l Log) rotatedSince(fd int) (bool, error) {
	var open, named unix.Stat_t
	if err := unix.Fstat(fd, &open); err != nil {
		return false, err
	}
	if err := unix.Stat(l.Path, &named); err != nil {
		return true, nil
	}
	return named.Ino != open.Ino || named.Dev != open.Dev, nil
}

// TailLog is the end of a bounded log, at most limit bytes of it: from the log, and from its
// rotated part when the log holds less (it was just started afresh).
func TailLog(path string, limit int64) ([]byte, error) {
	cur, err := tailOf(path, limit)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if int64(len(cur)) >= limit {
		return cur, nil
	}
	older, oerr := tailOf(Rotated(path), limit-int64(len(cur)))
	if oerr != nil {
		return cur, err // the log alone (or its error when neither is there)
	}
	return append(older, cur...), nil
}

// tailOf is the last limit bytes of the file at path.
func tailOf(path string, limit int64) ([]byte, error) {
	fd, err := openFile(path, unix.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	off := max(st.Size-limit, 0)
	buf := make([]byte, st.Size-off)
	n, err := unix.Pread(fd, buf, off)
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return buf[:n], nil
}
