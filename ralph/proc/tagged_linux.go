//go:build linux

package proc

import "os"

// environOf reads /proc/PID/environ.
func environOf(pid int) ([]byte, error) {
	data, ok := readProcFile(procPath(pid, "environ"), make([]byte, 4096))
	if !ok {
		return nil, os.ErrNotExist
	}
	return data, nil
}
