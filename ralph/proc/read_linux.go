//go:build linux

package proc

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// Reading /proc files with bare system calls: a Regent driving fifty loops reads a few hundred
// of them at each agent's end, and os.ReadFile spends twice the calls per file (the file
// object, the poller, the size) on files that are read once and closed.

// readProcFile reads a /proc file whole into buf (grown as needed) and returns what it read;
// ok is false when it cannot be opened (the process is gone, or not ours).
func readProcFile(path string, buf []byte) ([]byte, bool) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	for err == unix.EINTR {
		fd, err = unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	n := 0
	for {
		if n == len(buf) {
			buf = append(buf, make([]byte, len(buf)+512)...)
		}
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		if m == 0 {
			return buf[:n], true
		}
		n += m
	}
}

// procPath is /proc/PID/name.
func procPath(pid int, name string) string {
	return "/proc/" + strconv.Itoa(pid) + "/" + name
}
