//go:build darwin

package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// environOf reads the process's KERN_PROCARGS2 record (the user's own processes only).
func environOf(pid int) ([]byte, error) {
	rec, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return nil, err
	}
	env, ok := procargsEnviron(rec)
	if !ok {
		return nil, os.ErrNotExist
	}
	return env, nil
}
