package testrun

import (
	"os"
	"os/exec"
)

// A parent-death pipe, for systems whose kernel does not end a child with its parent (macOS
// has no Pdeathsig): the command's shell starts a watcher in the command's own process group
// that reads descriptor 3 (and holds none of the command's output open), the read end of a pipe whose write end only this process holds.
// When this process goes, however it goes, the kernel closes the write end, the read ends,
// and the watcher kills the whole group: the test command does not outlive the loop or the
// land that ran it. The command itself never sees descriptor 3.

// watchedScript is script behind the watcher.
func watchedScript(script string) string {
	return "( read _ <&3; kill -KILL 0 ) >/dev/null 2>&1 & exec 3<&-\n" + script
}

// parentWatch puts cmd, an `sh -c SCRIPT` in a process group of its own, behind the watcher.
// started is called once cmd has started (the read end is the child's alone then); release
// once the command is over and its group ended (the watcher ends with the group).
func parentWatch(cmd *exec.Cmd) (started, release func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Args[len(cmd.Args)-1] = watchedScript(cmd.Args[len(cmd.Args)-1])
	cmd.ExtraFiles = []*os.File{r} // descriptor 3
	return func() { r.Close() }, func() { r.Close(); w.Close() }, nil
}
