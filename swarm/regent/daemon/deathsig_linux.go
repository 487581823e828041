package daemon

import "syscall"

// endWithParent has the kernel send sig to the child a should its parent die first (Linux's
// Pdeathsig; it follows the thread that started the child, so that thread must outlive it).
func endWithParent(a *syscall.SysProcAttr, sig syscall.Signal) { a.Pdeathsig = sig }
