//go:build !linux

package testrun

import (
	"os/exec"
	"syscall"
)

// endWithParent puts the command behind a parent-death pipe (parentwatch.go): no signal is
// sent by the kernel here, so the group is killed outright, whatever sig asks.
func endWithParent(cmd *exec.Cmd, _ syscall.Signal) (started, release func(), err error) {
	return parentWatch(cmd)
}
