//go:build !linux

package driver

import "golang.org/x/sys/unix"

// Elsewhere than Linux the loop does not ready a host's terminal itself: the modes a host
// notes are another stty's (BSD's stty -g prints gfmt1:...), and with no /proc there is no way
// to the terminal of another process's pane. resetTerminal reporting false has the host put
// its own modes back before the next agent (startHosted), as on Linux when the modes are missing.

func readModes(string) (unix.Termios, bool) { return unix.Termios{}, false }

func resetTerminal(int, *unix.Termios) bool { return false }
