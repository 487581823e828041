//go:build linux

package proc

import (
	"bytes"
	"strconv"
	"sync"
)

// lastPID is the id the kernel handed out last, as /proc/loadavg shows it.
func lastPID() int {
	data, ok := readProcFile("/proc/loadavg", make([]byte, 128))
	if !ok {
		return 0
	}
	fields := bytes.Fields(data)
	if len(fields) < 5 {
		return 0
	}
	n, err := strconv.Atoi(string(fields[4]))
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// pidMax is the largest process id plus one, read once; 0 when unknown.
var pidMax = sync.OnceValue(func() int {
	data, ok := readProcFile("/proc/sys/kernel/pid_max", make([]byte, 32))
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(data)))
	if err != nil || n <= 0 {
		return 0
	}
	return n
})
