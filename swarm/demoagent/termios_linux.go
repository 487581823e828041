package demoagent

import "golang.org/x/sys/unix"

// The requests that read and set a terminal's modes.
const getTermios, setTermios = unix.TCGETS, unix.TCSETS
