package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/swarm-dev/swarm/ralph/proc"
)

// swarmOut runs the swarm binary with the script's environment and returns its stdout.
func swarmOut(ts *testscript.TestScript, args ...string) (string, error) {
	cmd := exec.Command("swarm", args...)
	cmd.Env = scriptEnv(ts)
	cmd.Dir = ts.Getenv("WORK")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("%v: %s", err, errb.String())
	}
	return out.String(), nil
}

func scriptEnv(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "SWARM_DIR", "SWARM_TMUX_SOCKET", "HOME", "TMPDIR", "TMUX_TMPDIR"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return env
}

func parseTimeout(ts *testscript.TestScript, args []string) (time.Duration, []string) {
	timeout := 20 * time.Second
	for len(args) > 1 && strings.HasPrefix(args[0], "-timeout") {
		secs, err := strconv.ParseFloat(args[1], 64)
		if err != nil {
			ts.Fatalf("bad -timeout %q", args[1])
		}
		timeout = time.Duration(secs * float64(time.Second))
		args = args[2:]
	}
	return timeout, args
}

func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	timeout, args := parseTimeout(ts, args)
	gone := false
	if len(args) > 0 && args[0] == "-gone" {
		gone, args = true, args[1:]
	}
	if len(args) != 2 {
		ts.Fatalf("usage: waitfor [-timeout SEC] [-gone] NAME REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	if err != nil {
		ts.Fatalf("bad regexp: %v", err)
	}
	deadline := time.Now().Add(timeout)
	var last string
	for {
		out, err := swarmOut(ts, "peek", "-n", "200", args[0])
		if err == nil {
			last = out
			matched := re.MatchString(out)
			if matched != gone {
				return
			}
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			ts.Fatalf("timed out after %s waiting for %q on %s; last screen:\n%s", timeout, args[1], args[0], last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	timeout, args := parseTimeout(ts, args)
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile [-timeout SEC] PATH [REGEXP]")
	}
	var re *regexp.Regexp
	if len(args) == 2 {
		re = regexp.MustCompile("(?m)" + args[1])
	}
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(timeout)
	for {
		data, err := os.ReadFile(path)
		if err == nil && (re == nil || re.Match(data)) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("timed out after %s waiting for %s (content: %q)", timeout, path, string(data))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func cmdWaitStatus(ts *testscript.TestScript, neg bool, args []string) {
	timeout, args := parseTimeout(ts, args)
	if len(args) != 2 {
		ts.Fatalf("usage: waitstatus [-timeout SEC] NAME STATUS")
	}
	deadline := time.Now().Add(timeout)
	var last string
	for {
		// The worker's process status (running, stopped, orphaned), not the state word, which
		// for a loop's worker says what its loop does.
		out, _ := swarmOut(ts, "status", "--format", "json", args[0])
		last = out
		var w struct {
			Status string `json:"status"`
		}
		if json.Unmarshal([]byte(out), &w) == nil && w.Status == args[1] {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("timed out after %s waiting for %s to be %s; last: %s", timeout, args[0], args[1], last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func cmdMkfile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: mkfile PATH SIZE")
	}
	size, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("bad size")
	}
	var b strings.Builder
	line := 0
	for b.Len() < size {
		fmt.Fprintf(&b, "line %05d: the quick brown fox; 'quotes' \"double\" $(not run) #{nor this} `tick`\n", line)
		line++
	}
	data := b.String()[:size]
	if err := os.WriteFile(ts.MkAbs(args[0]), []byte(data), 0o644); err != nil {
		ts.Fatalf("%v", err)
	}
}

// cmdPgroupAlive succeeds when the process group led by the pid in the file still has a live
// member; with ! it succeeds when none is left.
func cmdPgroupAlive(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: pgroupalive PIDFILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		ts.Fatalf("bad pid %q", data)
	}
	alive := proc.GroupAlive(pgid)
	if alive == neg {
		ts.Fatalf("process group %d alive=%v", pgid, alive)
	}
}

// cmdCode runs a command and checks its exact exit code; stdout and stderr are kept for the
// next stdout/stderr assertions.
func cmdCode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: code N COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("bad exit code %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	if err != nil {
		var ee *exec.ExitError
		if !errorsAs(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdParallel runs N copies of a command at once (the string {i} in arguments becomes the copy
// number) and fails unless every copy succeeds.
func cmdParallel(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: parallel N COMMAND [ARGS...]")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("bad count")
	}
	type result struct {
		i   int
		out string
		err error
	}
	results := make(chan result, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		go func(i int) {
			var a []string
			for _, s := range args[2:] {
				a = append(a, strings.ReplaceAll(s, "{i}", strconv.Itoa(i)))
			}
			cmd := exec.Command(args[1], a...)
			cmd.Env = scriptEnv(ts)
			cmd.Dir = ts.Getenv("WORK")
			<-start
			out, err := cmd.CombinedOutput()
			results <- result{i, string(out), err}
		}(i)
	}
	close(start)
	var failed []string
	for i := 0; i < n; i++ {
		r := <-results
		if r.err != nil {
			failed = append(failed, fmt.Sprintf("#%d: %v: %s", r.i, r.err, r.out))
		}
	}
	if len(failed) > 0 {
		ts.Fatalf("%d of %d failed:\n%s", len(failed), n, strings.Join(failed, "\n"))
	}
}

// cmdCountLines checks that a file has exactly N non-empty lines.
func cmdCountLines(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: countlines FILE N")
	}
	want, _ := strconv.Atoi(args[1])
	got := 0
	for _, l := range strings.Split(ts.ReadFile(args[0]), "\n") {
		if strings.TrimSpace(l) != "" {
			got++
		}
	}
	if got != want {
		ts.Fatalf("%s has %d lines, want %d", args[0], got, want)
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// cmdWebhook starts a local HTTP server that appends every request body, as one line, to
// $WORK/webhook.log, and sets WEBHOOK_URL to its address. It stops when the script ends.
// With -hang it never answers (HANG_WEBHOOK_URL); with -redirect it answers 302 towards an
// address of its own that logs to $WORK/redirect.log (REDIRECT_WEBHOOK_URL).
func cmdWebhook(ts *testscript.TestScript, neg bool, args []string) {
	hang := len(args) == 1 && args[0] == "-hang"
	redirect := len(args) == 1 && args[0] == "-redirect"
	if len(args) > 0 && !hang && !redirect {
		ts.Fatalf("usage: webhook [-hang|-redirect]")
	}
	logPath := ts.MkAbs("webhook.log")
	if redirect {
		logPath = ts.MkAbs("redirect.log")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ts.Fatalf("listen: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hang {
			// A dead endpoint: it takes the request and never answers.
			<-r.Context().Done()
			return
		}
		if redirect && r.URL.Path == "/hook" {
			http.Redirect(w, r, "/moved", http.StatusFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err == nil {
			fmt.Fprintf(f, "%s %s %s\n", r.Method, r.Header.Get("Content-Type"), strings.ReplaceAll(string(body), "\n", " "))
			f.Close()
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	go func() { _ = srv.Serve(ln) }()
	ts.Defer(func() { _ = srv.Close() })
	name := "WEBHOOK_URL"
	if hang {
		name = "HANG_WEBHOOK_URL"
	}
	if redirect {
		name = "REDIRECT_WEBHOOK_URL"
	}
	ts.Setenv(name, "http://"+ln.Addr().String()+"/hook")
}

// cmdWaitGone polls until no process of the group whose leader pid is in the file is alive.
func cmdWaitGone(ts *testscript.TestScript, neg bool, args []string) {
	timeout, args := parseTimeout(ts, args)
	if len(args) != 1 {
		ts.Fatalf("usage: waitgone [-timeout SEC] PIDFILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		ts.Fatalf("bad pid %q", data)
	}
	deadline := time.Now().Add(timeout)
	for proc.GroupAlive(pgid) {
		if time.Now().After(deadline) {
			ts.Fatalf("process group %d still alive after %s", pgid, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cmdWaitExec runs a program again and again until what it prints matches.
func cmdWaitExec(ts *testscript.TestScript, neg bool, args []string) {
	timeout, args := parseTimeout(ts, args)
	if len(args) < 2 {
		ts.Fatalf("usage: waitexec [-timeout SEC] REGEXP PROGRAM [ARGS...]")
	}
	re := regexp.MustCompile("(?m)" + args[0])
	deadline := time.Now().Add(timeout)
	for {
		cmd := exec.Command(args[1], args[2:]...)
		cmd.Dir, cmd.Env = ts.Getenv("WORK"), scriptEnv(ts)
		out, _ := cmd.CombinedOutput()
		if re.Match(out) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("timed out after %s waiting for %q in the output of %s:\n%s", timeout, args[0], strings.Join(args[1:], " "), out)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
