package main

import (
	"bytes"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// openPty opens a new pseudo-terminal pair: the master, and the slave with echo off. macOS
// names the slave through ioctls of its own (grantpt, unlockpt and ptsname in libc).
func openPty() (*os.File, *os.File, error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	master := os.NewFile(uintptr(fd), "/dev/ptmx")
	var name [128]byte
	for _, req := range []uint{unix.TIOCPTYGRANT, unix.TIOCPTYUNLK, unix.TIOCPTYGNAME} {
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(unsafe.Pointer(&name))); errno != 0 {
			master.Close()
			return nil, nil, errno
		}
	}
	path, _, _ := bytes.Cut(name[:], []byte{0})
	slave, err := os.OpenFile(string(path), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	if t, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TIOCGETA); err == nil {
		t.Lflag &^= unix.ECHO
		_ = unix.IoctlSetTermios(int(slave.Fd()), unix.TIOCSETA, t)
	}
	return master, slave, nil
}
