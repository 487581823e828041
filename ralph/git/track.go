package git

import (
	"os/exec"
	"sync/atomic"
	"syscall"
)

// A process whose git commands must not outlive it unseen (the Regent: its successor ends
// what it left running before it acts, or a spec would be committed twice, a commit still
// running in a slow hook while the successor makes its own) has every git it runs start in a
// process group of its own, the git with its hooks, told to it as it starts.

var started atomic.Pointer[func(pgid int) (done func())]

// TrackRuns has every git this process runs from now on start in a process group of its own
// and told to fn as it starts; the func fn returns is called once git has ended. A nil fn
// stops it.
func TrackRuns(fn func(pgid int) (done func())) {
	if fn == nil {
		started.Store(nil)
		return
	}
	started.Store(&fn)
}

// tracking reports whether TrackRuns asks for git's runs.
func tracking() bool { return started.Load() != nil }

// track tells TrackRuns' fn of the group pgid that started; the func it returns is called
// once it has ended.
func track(pgid int) (done func()) {
	if fn := started.Load(); fn != nil {
		return (*fn)(pgid)
	}
	return func() {}
}

// runCmd runs cmd to its end, in a process group of its own and told when TrackRuns asks.
func runCmd(cmd *exec.Cmd) error {
	if !tracking() {
		return cmd.Run()
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		return err
	}
	defer track(cmd.Process.Pid)()
	return cmd.Wait()
}
