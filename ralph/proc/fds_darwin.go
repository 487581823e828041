//go:build darwin

package proc

import (
	"context"
	"os/exec"
	"time"
)

// lsofWait bounds the look: lsof goes through every process's open files.
const lsofWait = 10 * time.Second

// stdoutTo asks lsof, which every Mac has, for the processes with path open as descriptor 1:
// macOS tells a process's open files only through libproc, which Go reaches only with cgo.
func stdoutTo(path string) []int {
	ctx, cancel := context.WithTimeout(context.Background(), lsofWait)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "lsof", "-t", "-a", "-d", "1", "--", path).Output()
	return pidLines(out)
}
