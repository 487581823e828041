package proc

import "syscall"

// StdoutTo lists the processes whose standard output is the file at path (as opened: a file
// removed since is not matched). Only the user's own processes can be read.
func StdoutTo(path string) []int { return stdoutTo(path) }

// EndStdoutTo sends SIGTERM to the processes whose standard output is path.
func EndStdoutTo(path string) {
	for _, pid := range StdoutTo(path) {
		_ = syscall.Kill(pid, syscall.SIGTERM)
	}
}
