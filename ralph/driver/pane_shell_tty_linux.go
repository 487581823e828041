package driver

import (
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/swarm-dev/swarm/state"
)

// Readying a pane shell's terminal for its next agent, from the loop: the agent before may
// have left it raw, and keys typed for it may wait unread. A new pane's terminal had neither.

// readModes reads the terminal modes a pane shell noted as it began, as stty -g prints them:
// the input, output, control and local flags, then the control characters, in hex, separated
// by colons. ok is false when there are none, or not in that form (another stty's).
func readModes(path string) (modes unix.Termios, ok bool) {
	data, err := state.ReadFile(path)
	if err != nil {
		return modes, false
	}
	line, whole := strings.CutSuffix(string(data), "\n")
	fields := strings.Split(line, ":")
	if !whole || len(fields) < 4+len(modes.Cc) {
		return modes, false
	}
	var v [4]uint64
	for i := range v {
		if v[i], err = strconv.ParseUint(fields[i], 16, 32); err != nil {
			return modes, false
		}
	}
	modes.Iflag, modes.Oflag, modes.Cflag, modes.Lflag = uint32(v[0]), uint32(v[1]), uint32(v[2]), uint32(v[3])
	for i := range modes.Cc {
		c, err := strconv.ParseUint(fields[4+i], 16, 8)
		if err != nil {
			return modes, false
		}
		modes.Cc[i] = uint8(c)
	}
	return modes, true
}

// resetTerminal readies the terminal of the pane whose process is shellPID for the next agent:
// it puts back modes (when there are some) and discards what was typed and never read. It
// reports whether it put the modes back. The pane shell's standard error is the terminal even
// while it waits for its next script (its input is then the pipe).
func resetTerminal(shellPID int, modes *unix.Termios) (restored bool) {
	for _, n := range []int{2, 1, 0} {
		fd, err := unix.Open("/proc/"+strconv.Itoa(shellPID)+"/fd/"+strconv.Itoa(n), unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		cur, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		if err != nil {
			unix.Close(fd) // not a terminal
			continue
		}
		if modes != nil {
			// The line discipline stays as it is: stty -g does not carry it.
			cur.Iflag, cur.Oflag, cur.Cflag, cur.Lflag, cur.Cc = modes.Iflag, modes.Oflag, modes.Cflag, modes.Lflag, modes.Cc
			restored = unix.IoctlSetTermios(fd, unix.TCSETS, cur) == nil
		}
		_ = unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH)
		unix.Close(fd)
		return restored
	}
	return false
}
