package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// cmdPty runs a program on a fresh pseudo-terminal that never answers what is asked of it,
// as a script driving swarm through a pty would: the program must end within the bound and
// must not have asked the terminal anything (a query waits for an answer that never comes).
// What it wrote goes to stdout. With -cols the terminal says it is that many columns wide
// (a new pty says nothing of its size).
//
//	pty [-within SEC] [-cols N] PROGRAM [ARGS...]
func cmdPty(ts *testscript.TestScript, neg bool, args []string) {
	within, args := parseWithin(ts, args, time.Second)
	cols := 0
	if len(args) > 1 && args[0] == "-cols" {
		n, err := strconv.Atoi(args[1])
		if err != nil || n <= 0 {
			ts.Fatalf("bad -cols %q", args[1])
		}
		cols, args = n, args[2:]
	}
	if len(args) == 0 {
		ts.Fatalf("usage: pty [-within SEC] [-cols N] PROGRAM [ARGS...]")
	}
	out, took, err := runOnPty(ts, within, cols, args)
	fmt.Fprint(ts.Stdout(), out)
	if took >= within {
		ts.Fatalf("%s took %v on a silent terminal (bound %v); it wrote %q", args[0], took.Round(time.Millisecond), within, out)
	}
	for _, query := range []string{"\x1b]", "\x1b[6n", "\x1b[c", "\x1b[>"} {
		if strings.Contains(out, query) {
			ts.Fatalf("%s asked the terminal something (%q): %q", args[0], query, out)
		}
	}
	if neg != (err != nil) {
		ts.Fatalf("%s: unexpected result %v; it wrote %q", args[0], err, out)
	}
}

// runOnPty starts the program as the leader of a new session whose controlling terminal is a
// new pty, reads all it writes, and kills it when it outlasts the bound twice over.
func runOnPty(ts *testscript.TestScript, within time.Duration, cols int, args []string) (string, time.Duration, error) {
	start := time.Now()
	master, cmd := startOnPty(ts, cols, args)
	defer master.Close()
	var out bytes.Buffer
	read := make(chan struct{})
	go func() {
		// Ends with EIO once the program and every holder of the terminal are gone.
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				close(read)
				return
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * within):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	took := time.Since(start)
	select {
	case <-read:
	case <-time.After(time.Second):
	}
	master.Close()
	return strings.ReplaceAll(out.String(), "\r\n", "\n"), took, err
}

// parseWithin reads a leading -within SEC (def when there is none).
func parseWithin(ts *testscript.TestScript, args []string, def time.Duration) (time.Duration, []string) {
	if len(args) > 1 && args[0] == "-within" {
		secs, err := strconv.ParseFloat(args[1], 64)
		if err != nil {
			ts.Fatalf("bad -within %q", args[1])
		}
		return time.Duration(secs * float64(time.Second)), args[2:]
	}
	return def, args
}

// startOnPty starts the program as the leader of a new session whose controlling terminal is
// a new pty (cols wide, when cols is not 0), in the script's environment, and returns the
// pty's master side.
func startOnPty(ts *testscript.TestScript, cols int, args []string) (*os.File, *exec.Cmd) {
	master, slave, err := openPty()
	if err != nil {
		ts.Fatalf("pty: %v", err)
	}
	if cols > 0 {
		if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: 24}); err != nil {
			ts.Fatalf("pty: %v", err)
		}
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(scriptEnv(ts), "TERM=xterm-256color")
	cmd.Dir = ts.Getenv("WORK")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		slave.Close()
		master.Close()
		ts.Fatalf("pty: %v", err)
	}
	slave.Close()
	return master, cmd
}
