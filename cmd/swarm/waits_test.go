package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/swarm-dev/swarm/ralph/proc"
)

// The waits poll with a deadline instead of sleeping. Each has two readings:
//
//	waitX [-timeout SEC] ...   waits until the condition holds; the time running out fails
//	! waitX -timeout SEC ...   watches for SEC that the condition never holds; it holding once fails
//
// A negated wait must say how long it watches (a default would hide what the scenario claims),
// and what it watches must stay readable all along: a screen, a status or a program that
// cannot be read or run is a failure, not a condition that did not hold. (A file not there,
// or not readable yet, is one that does not hold: that is what waitfile watches for.)

// waitTimeout is how long a wait without -timeout waits.
const waitTimeout = 20 * time.Second

// parseTimeout reads leading "-timeout SEC"; given says whether there was one.
func parseTimeout(ts *testscript.TestScript, args []string) (timeout time.Duration, given bool, rest []string) {
	timeout = waitTimeout
	for len(args) > 1 && args[0] == "-timeout" {
		secs, err := strconv.ParseFloat(args[1], 64)
		if err != nil || secs <= 0 {
			ts.Fatalf("bad -timeout %q", args[1])
		}
		timeout, given = time.Duration(secs*float64(time.Second)), true
		args = args[2:]
	}
	return timeout, given, args
}

// waitArgs is parseTimeout for a wait called name, which refuses a negated wait without one.
func waitArgs(ts *testscript.TestScript, neg bool, name string, args []string) (time.Duration, []string) {
	timeout, given, args := parseTimeout(ts, args)
	if neg && !given {
		ts.Fatalf("%s: ! needs -timeout SEC: how long the condition must not hold", name)
	}
	return timeout, args
}

// poll asks look every interval until it holds or the time is up. Without neg the time
// running out fails the script; with neg, look holding does. what names the condition and
// look's second result is the last thing seen, both for the failure's message.
func poll(ts *testscript.TestScript, neg bool, timeout, interval time.Duration, what string, look func() (bool, string)) {
	start := time.Now()
	deadline := start.Add(timeout)
	for {
		held, last := look()
		switch {
		case held && neg:
			ts.Fatalf("%s after %s (watched for %s); last seen:\n%s", what, time.Since(start).Round(time.Millisecond), timeout, last)
		case held:
			return
		case time.Now().After(deadline) && neg:
			ts.Logf("not %s in %s", what, timeout)
			return
		case time.Now().After(deadline):
			ts.Fatalf("timed out after %s waiting until %s; last seen:\n%s", timeout, what, last)
		}
		time.Sleep(interval)
	}
}

// cmdWaitFor polls the worker's screen (swarm peek) until a line matches REGEXP, or with
// -gone until none does. With !, for SEC no line matches (with -gone: a line matches all
// along), and the screen must be readable throughout.
//
//	[!] waitfor [-timeout SEC] [-gone] NAME REGEXP
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	timeout, args := waitArgs(ts, neg, "waitfor", args)
	gone := false
	if len(args) > 0 && args[0] == "-gone" {
		gone, args = true, args[1:]
	}
	if len(args) != 2 {
		ts.Fatalf("usage: [!] waitfor [-timeout SEC] [-gone] NAME REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	if err != nil {
		ts.Fatalf("waitfor: bad regexp: %v", err)
	}
	what := args[0] + "'s screen matches " + strconv.Quote(args[1])
	if gone {
		what = args[0] + "'s screen no longer matches " + strconv.Quote(args[1])
	}
	poll(ts, neg, timeout, 50*time.Millisecond, what, func() (bool, string) {
		out, err := swarmOut(ts, "peek", "-n", "200", args[0])
		if err != nil {
			if neg {
				ts.Fatalf("waitfor: cannot read %s's screen: %v", args[0], err)
			}
			return false, err.Error()
		}
		return re.MatchString(out) != gone, out
	})
}

// cmdWaitFile polls until the file exists (and its content matches REGEXP). With !, for SEC
// the file does not exist (or its content does not match).
//
//	[!] waitfile [-timeout SEC] PATH [REGEXP]
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	timeout, args := waitArgs(ts, neg, "waitfile", args)
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: [!] waitfile [-timeout SEC] PATH [REGEXP]")
	}
	var re *regexp.Regexp
	what := args[0] + " exists"
	if len(args) == 2 {
		var err error
		if re, err = regexp.Compile("(?m)" + args[1]); err != nil {
			ts.Fatalf("waitfile: bad regexp: %v", err)
		}
		what = args[0] + " matches " + strconv.Quote(args[1])
	}
	path := ts.MkAbs(args[0])
	poll(ts, neg, timeout, 50*time.Millisecond, what, func() (bool, string) {
		// A path that cannot be read yet (a directory where the file will be) is one that
		// does not hold the file yet.
		data, err := os.ReadFile(path)
		if err != nil {
			return false, err.Error()
		}
		return re == nil || re.Match(data), strconv.Quote(string(data))
	})
}

// cmdWaitStatus polls swarm status until the worker's process is in STATUS (running,
// stopped, orphaned). With !, for SEC it is never in STATUS, and its status can be read
// throughout.
//
//	[!] waitstatus [-timeout SEC] NAME STATUS
func cmdWaitStatus(ts *testscript.TestScript, neg bool, args []string) {
	timeout, args := waitArgs(ts, neg, "waitstatus", args)
	if len(args) != 2 {
		ts.Fatalf("usage: [!] waitstatus [-timeout SEC] NAME STATUS")
	}
	poll(ts, neg, timeout, 50*time.Millisecond, args[0]+" is "+args[1], func() (bool, string) {
		// The worker's process status (running, stopped, orphaned), not the state word, which
		// for a loop's worker says what its loop does.
		out, err := swarmOut(ts, "status", "--format", "json", args[0])
		var w struct {
			Status string `json:"status"`
		}
		if jerr := json.Unmarshal([]byte(out), &w); (err != nil || jerr != nil) && neg {
			ts.Fatalf("waitstatus: cannot read %s's status: %v %v: %s", args[0], err, jerr, out)
		}
		return w.Status == args[1], out
	})
}

// cmdWaitGone polls until no process of the group whose leader's pid is in PIDFILE is alive.
// With !, the group keeps a live member for SEC.
//
//	[!] waitgone [-timeout SEC] PIDFILE
func cmdWaitGone(ts *testscript.TestScript, neg bool, args []string) {
	timeout, args := waitArgs(ts, neg, "waitgone", args)
	if len(args) != 1 {
		ts.Fatalf("usage: [!] waitgone [-timeout SEC] PIDFILE")
	}
	pgid := readPgid(ts, args[0])
	poll(ts, neg, timeout, 50*time.Millisecond, "process group "+strconv.Itoa(pgid)+" is gone", func() (bool, string) {
		return !proc.GroupAlive(pgid), ""
	})
}

// readPgid is the process group named by the leader's pid in a file.
func readPgid(ts *testscript.TestScript, file string) int {
	data, err := os.ReadFile(ts.MkAbs(file))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pgid <= 0 {
		ts.Fatalf("bad pid %q in %s", data, file)
	}
	return pgid
}

// cmdWaitExec runs a program again and again until what it prints (stdout and stderr) matches
// REGEXP. With !, for SEC its output never matches. A program that cannot be started fails
// either way.
//
//	[!] waitexec [-timeout SEC] REGEXP PROGRAM [ARGS...]
func cmdWaitExec(ts *testscript.TestScript, neg bool, args []string) {
	timeout, args := waitArgs(ts, neg, "waitexec", args)
	if len(args) < 2 {
		ts.Fatalf("usage: [!] waitexec [-timeout SEC] REGEXP PROGRAM [ARGS...]")
	}
	re, err := regexp.Compile("(?m)" + args[0])
	if err != nil {
		ts.Fatalf("waitexec: bad regexp: %v", err)
	}
	what := "the output of " + strings.Join(args[1:], " ") + " matches " + strconv.Quote(args[0])
	poll(ts, neg, timeout, 100*time.Millisecond, what, func() (bool, string) {
		cmd := exec.Command(args[1], args[2:]...)
		cmd.Dir, cmd.Env = ts.Getenv("WORK"), scriptEnv(ts)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			ts.Fatalf("waitexec: %v", err)
		}
		return re.Match(out), string(out)
	})
}
