//go:build !linux

package daemon

import "syscall"

// endWithParent does nothing here: macOS and the BSDs have no parent-death signal, so a child
// outlives a parent that dies without ending it. What else ends it stays: its process group
// (ended as a whole by the parent's cleanup, or by whoever ends what a dead parent left).
func endWithParent(*syscall.SysProcAttr, syscall.Signal) {}
