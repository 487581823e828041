//go:build !linux

package driver

import "golang.org/x/sys/unix"

// Elsewhere than Linux the loop does not ready a pane shell's terminal itself: the modes a
// pane shell notes are another stty's (BSD's stty -g prints gfmt1:...), and with no /proc
// there is no way to the terminal of another process's pane. resetTerminal reporting false has
// the pane shell put its own modes back before the next agent (startAgent), as on Linux when
// the modes are missing.

func readModes(string) (unix.Termios, bool) { return unix.Termios{}, false }

func resetTerminal(int, *unix.Termios) bool { return false }
