//go:build linux

package proc

import (
	"bytes"
	"fmt"
)

// machine reads /proc/loadavg and MemAvailable in /proc/meminfo.
func machine() (load float64, avail int64) {
	if data, ok := readProcFile("/proc/loadavg", make([]byte, 128)); ok {
		fmt.Sscanf(string(data), "%f", &load)
	}
	if data, ok := readProcFile("/proc/meminfo", make([]byte, 4096)); ok {
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			if rest, ok := bytes.CutPrefix(l, []byte("MemAvailable:")); ok {
				var kb int64
				fmt.Sscanf(string(bytes.TrimSpace(rest)), "%d", &kb)
				avail = kb * 1024
			}
		}
	}
	return load, avail
}
