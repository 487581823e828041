package testrun

import (
	"os/exec"
	"syscall"
)

// endWithParent has the kernel send sig to the child should its parent die first (Linux's
// Pdeathsig; it follows the thread that started the child, so that thread must outlive it).
func endWithParent(cmd *exec.Cmd, sig syscall.Signal) (started, release func(), err error) {
	cmd.SysProcAttr.Pdeathsig = sig
	return func() {}, func() {}, nil
}
