//go:build linux

package proc

import (
	"os"
	"strconv"
)

// stdoutTo reads each process's standard output from /proc/PID/fd/1.
func stdoutTo(path string) []int {
	var out []int
	for _, pid := range pids() {
		if target, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/1"); err == nil && target == path {
			out = append(out, pid)
		}
	}
	return out
}
