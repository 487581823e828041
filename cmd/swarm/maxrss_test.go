package main

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdMaxRSS is the script command maxrss: PROGRAM run with the script's environment, its
// output the script's stdout and stderr, which must succeed (fail, with !) and whose peak
// resident memory must stay within MB (with or without !).
//
//	maxrss MB PROGRAM [ARGS...]
func cmdMaxRSS(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: maxrss MB PROGRAM [ARGS...]")
	}
	limit, err := strconv.Atoi(args[0])
	if err != nil || limit <= 0 {
		ts.Fatalf("maxrss: bad MB %q", args[0])
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Env, cmd.Dir = benchScriptEnv(ts), ts.MkAbs(".")
	var out, errs strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errs
	runErr := cmd.Run()
	_, _ = ts.Stdout().Write([]byte(out.String()))
	_, _ = ts.Stderr().Write([]byte(errs.String()))
	if cmd.ProcessState == nil {
		ts.Fatalf("maxrss: %v", runErr)
	}
	// Linux gives ru_maxrss in kilobytes.
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss / 1024
	ts.Logf("maxrss: %s peaked at %d MB", strings.Join(args[1:], " "), peak)
	if peak > int64(limit) {
		ts.Fatalf("maxrss: %s peaked at %d MB, over %d MB", strings.Join(args[1:], " "), peak, limit)
	}
	if runErr != nil && !neg {
		ts.Fatalf("maxrss: %s: %v", strings.Join(args[1:], " "), runErr)
	}
	if runErr == nil && neg {
		ts.Fatalf("maxrss: %s: unexpected success", strings.Join(args[1:], " "))
	}
}
