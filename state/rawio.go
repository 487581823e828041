package state

import (
	"errors"
	"math/rand/v2"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Small files read and replaced with bare system calls. A Regent driving fifty loops reads and
// replaces a few dozen small files per iteration of each; os.Open spends five calls more than
// the open itself on every one (it offers the file to the runtime's poller, which has no use
// for a regular file), and on a virtual machine every call counts.

// ReadFile reads the whole file at path, as os.ReadFile does (its errors name the path, and
// errors.Is(err, os.ErrNotExist) holds for a missing file). Not for pipes or devices.
func ReadFile(path string) ([]byte, error) {
	fd, err := openFile(path, unix.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return readFD(fd, path)
}

// readFD reads what is left of the file open at fd (named path in errors).
func readFD(fd int, path string) ([]byte, error) {
	size := 512
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && st.Size > 0 && st.Size < 1<<30 {
		size = int(st.Size) + 1 // one byte more: the read that finds the end needs no growth
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// openFile opens path with flags (close-on-exec added) and returns its descriptor.
func openFile(path string, flags int, perm uint32) (int, error) {
	for {
		fd, err := unix.Open(path, flags|unix.O_CLOEXEC, perm)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return -1, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}

// createTemp creates a new file in dir named prefix and a random number, mode 0600, for
// writing; as os.CreateTemp does, it never takes a file that exists.
func createTemp(dir, prefix string) (fd int, name string, err error) {
	for range 1000 {
		name = dir + string(os.PathSeparator) + prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		fd, err = openFile(name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL, 0o600)
		if !errors.Is(err, os.ErrExist) {
			return fd, name, err
		}
	}
	return -1, "", err
}

// writeAll writes data to fd whole.
func writeAll(fd int, data []byte, name string) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "write", Path: name, Err: err}
		}
		data = data[n:]
	}
	return nil
}

// fsyncFile waits until what was written to fd is on the disk.
func fsyncFile(fd int, name string) error {
	for {
		err := unix.Fsync(fd)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "sync", Path: name, Err: err}
		}
		return nil
	}
}
