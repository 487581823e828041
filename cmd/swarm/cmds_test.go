package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"

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

func cmdMkfile(ts *testscript.TestScript, args []string) {
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
// member; with ! it succeeds when none is left. It looks once: to wait for the group's end,
// waitgone.
//
//	[!] pgroupalive PIDFILE
func cmdPgroupAlive(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: [!] pgroupalive PIDFILE")
	}
	pgid := readPgid(ts, args[0])
	if alive := proc.GroupAlive(pgid); alive == neg {
		ts.Fatalf("process group %d alive=%v", pgid, alive)
	}
}

// cmdCode runs a command and checks its exact exit code; stdout and stderr are kept for the
// next stdout/stderr assertions.
func cmdCode(ts *testscript.TestScript, args []string) {
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
func cmdParallel(ts *testscript.TestScript, args []string) {
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
func cmdCountLines(ts *testscript.TestScript, args []string) {
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
func cmdWebhook(ts *testscript.TestScript, args []string) {
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
