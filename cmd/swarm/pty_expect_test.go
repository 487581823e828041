package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdPtyExpect runs an interactive program on a pseudo-terminal as a person would: it waits
// until what the program drew matches REGEXP, types KEYS (a Go string literal: "\x02d" is
// tmux's detach; again each second until it takes), and waits for the program to end; all of
// it within the bound. What the program drew goes to stdout. -cols gives the terminal a width.
//
//	ptyexpect [-within SEC] [-cols N] REGEXP KEYS PROGRAM [ARGS...]
func cmdPtyExpect(ts *testscript.TestScript, neg bool, args []string) {
	within, args := parseWithin(ts, args, 10*time.Second)
	cols := 0
	if len(args) > 1 && args[0] == "-cols" {
		n, err := strconv.Atoi(args[1])
		if err != nil || n <= 0 {
			ts.Fatalf("bad -cols %q", args[1])
		}
		cols, args = n, args[2:]
	}
	if len(args) < 3 {
		ts.Fatalf("usage: ptyexpect [-within SEC] [-cols N] REGEXP KEYS PROGRAM [ARGS...]")
	}
	re, err := regexp.Compile(args[0])
	if err != nil {
		ts.Fatalf("ptyexpect: %v", err)
	}
	keys, err := strconv.Unquote(`"` + args[1] + `"`)
	if err != nil {
		ts.Fatalf("ptyexpect: keys %q: %v", args[1], err)
	}
	out, err := expectOnPty(ts, within, cols, re, keys, args[2:])
	fmt.Fprint(ts.Stdout(), out)
	if neg != (err != nil) {
		ts.Fatalf("%s: unexpected result %v; it drew %q", args[2], err, out)
	}
}

// expectOnPty is the program on a new pty, answered once with keys when its screen matches re.
func expectOnPty(ts *testscript.TestScript, within time.Duration, cols int, re *regexp.Regexp, keys string, args []string) (string, error) {
	master, cmd := startOnPty(ts, cols, args)
	defer master.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	matched, drained := make(chan struct{}), make(chan struct{})
	go readPty(master, &mu, &out, re, matched, drained)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(within)
	select {
	case <-matched:
		_, _ = master.Write([]byte(keys))
	case err := <-done:
		mu.Lock()
		defer mu.Unlock()
		ts.Fatalf("%s ended (%v) before its screen matched %q; it drew %q", args[0], err, re, out.String())
	case <-deadline:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		mu.Lock()
		defer mu.Unlock()
		ts.Fatalf("%s: its screen did not match %q within %v; it drew %q", args[0], re, within, out.String())
	}
	// Typed again each second until the program ends: a terminal program that has drawn its
	// screen may still be settling in (tmux asks the terminal what it is) and miss them.
	var err error
	again := time.NewTicker(time.Second)
	defer again.Stop()
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-again.C:
			_, _ = master.Write([]byte(keys))
		case <-deadline:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
			ts.Fatalf("%s did not end after %q", args[0], keys)
		}
	}
	waitDrained(drained)
	mu.Lock()
	defer mu.Unlock()
	return strings.ReplaceAll(out.String(), "\r\n", "\n"), err
}

// waitDrained waits for the pty's reader: what the program wrote last (tmux's "[detached
// ...]") may still be in the pty when it has ended, and its end comes once nothing holds the
// pty's other side.
func waitDrained(drained <-chan struct{}) {
	select {
	case <-drained:
	case <-time.After(5 * time.Second):
	}
}

// readPty copies what the program draws into out until the pty ends, closing matched once out
// matches re, and drained at its end.
func readPty(master io.Reader, mu *sync.Mutex, out *bytes.Buffer, re *regexp.Regexp, matched, drained chan struct{}) {
	defer close(drained)
	buf := make([]byte, 4096)
	once := sync.Once{}
	for {
		n, err := master.Read(buf)
		mu.Lock()
		out.Write(buf[:n])
		if re.Match(out.Bytes()) {
			once.Do(func() { close(matched) })
		}
		mu.Unlock()
		if err != nil {
			return
		}
	}
}
