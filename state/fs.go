package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"golang.org/x/sys/unix"
)

// WriteFileAtomic replaces path with data so that readers see either the old or the new content,
// never a torn file, even if the process dies half way.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	return replaceFile(path, data, perm, true)
}

// ReplaceFile replaces path with data as WriteFileAtomic does, without waiting for the disk:
// for files written again before each use (a script about to run, a screen kept to look back
// at), where a crash of the machine may lose the newest content but never tears it.
func ReplaceFile(path string, data []byte, perm os.FileMode) error {
	return replaceFile(path, data, perm, false)
}

func replaceFile(path string, data []byte, perm os.FileMode, durable bool) error {
	dir := filepath.Dir(path)
	fd, tmp, err := createTemp(dir, "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	if err := fillTemp(fd, tmp, data, perm, durable); err != nil {
		_ = unix.Unlink(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = unix.Unlink(tmp)
		return err
	}
	if !durable {
		return nil
	}
	return syncDir(dir)
}

// fillTemp gives the new file fd (named name) its mode and data, waits for the disk when
// durable, and closes it.
func fillTemp(fd int, name string, data []byte, perm os.FileMode, durable bool) error {
	err := unix.Fchmod(fd, uint32(perm.Perm()))
	if err != nil {
		err = &os.PathError{Op: "chmod", Path: name, Err: err}
	}
	if err == nil {
		err = writeAll(fd, data, name)
	}
	if err == nil && durable {
		err = fsyncFile(fd, name)
	}
	if cerr := unix.Close(fd); err == nil && cerr != nil {
		err = &os.PathError{Op: "close", Path: name, Err: cerr}
	}
	return err
}

func syncDir(dir string) error {
	fd, err := openFile(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	// Some filesystems refuse fsync on directories; the rename is still atomic there.
	_ = fsyncFile(fd, dir)
	return nil
}

// Lock is an exclusive advisory lock on a sidecar file that is never renamed or deleted, so
// every process agrees on which inode it locks.
type Lock struct {
	fl *flock.Flock
}

// AcquireLock blocks until the lock file at path is held exclusively.
func AcquireLock(path string) (*Lock, error) {
	fl := flock.New(path, flock.SetPermissions(0o600))
	if err := fl.Lock(); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{fl: fl}, nil
}

// TryLock takes the lock at path if nobody holds it; ok is false when another process does.
func TryLock(path string) (l *Lock, ok bool, err error) {
	fl := flock.New(path, flock.SetPermissions(0o600))
	ok, err = fl.TryLock()
	if err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, false, nil
	}
	return &Lock{fl: fl}, true, nil
}

// LockWithin takes the lock at path, waiting up to wait for its holder to let go; ok is false
// when it did not within that time.
func LockWithin(path string, wait time.Duration) (l *Lock, ok bool, err error) {
	fl := flock.New(path, flock.SetPermissions(0o600))
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ok, err = fl.TryLockContext(ctx, 10*time.Millisecond)
	if !ok {
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{fl: fl}, true, nil
}

// IsLocked reports whether some process currently holds the lock at path. It answers "is the
// holder alive" without trusting a PID that may have been reused.
func IsLocked(path string) bool {
	if _, err := os.Stat(path); err != nil {
		return false
	}
	l, ok, err := TryLock(path)
	if err != nil {
		return false
	}
	if ok {
		l.Unlock()
		return false
	}
	return true
}

// Unlock releases the lock; it is safe to call more than once.
func (l *Lock) Unlock() {
	if l != nil && l.fl != nil {
		_ = l.fl.Unlock()
	}
}

// SetAside renames a corrupt file out of the way so that nothing else reads it again, and
// returns where it went.
func SetAside(path string) (string, error) {
	dest := fmt.Sprintf("%s.corrupt-%s", path, time.Now().UTC().Format("20060102T150405.000000000"))
	if err := os.Rename(path, dest); err != nil {
		return "", err
	}
	return dest, nil
}

// CorruptError reports a data file that could not be parsed and was moved aside.
type CorruptError struct {
	Path    string
	MovedTo string
	Err     error
	// Rebuilt are the workers found running and recorded afresh; WriteErr why that record
	// could not be written.
	Rebuilt  []string
	WriteErr error
}

func (e *CorruptError) Error() string {
	if len(e.Rebuilt) == 0 {
		return fmt.Sprintf("state file %s was corrupt (%v); moved it to %s and started afresh", e.Path, e.Err, e.MovedTo)
	}
	msg := fmt.Sprintf("state file %s was corrupt (%v); moved it to %s and rebuilt the records of the %d worker(s) still running from tmux and their processes (%s): their tags, worktrees and exit codes are lost",
		e.Path, e.Err, e.MovedTo, len(e.Rebuilt), strings.Join(e.Rebuilt, ", "))
	if e.WriteErr != nil {
		msg += fmt.Sprintf("; the rebuilt records cannot be written: %v", e.WriteErr)
	}
	return msg
}

// IsCorrupt reports whether err (or one it wraps) is a CorruptError.
func IsCorrupt(err error) bool {
	var ce *CorruptError
	return errors.As(err, &ce)
}
