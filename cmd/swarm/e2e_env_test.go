package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// e2eEnv is one private swarm installation for an end-to-end test: its own binary, state
// directory, tmux server, HOME and work directory, all inside the test's temp dir.
type e2eEnv struct {
	t      *testing.T
	bin    string
	root   string // SWARM_DIR
	home   string // HOME of swarm itself and of the agents
	work   string // where the agents run
	socket string
	tmpdir string // TMUX_TMPDIR
}

var e2eSerial atomic.Int64

func newE2EEnv(t *testing.T) *e2eEnv {
	t.Helper()
	data, err := benchBuildSwarm()
	if err != nil {
		t.Fatal(err)
	}
	// The agents keep project settings by the folder's real path; a symlinked temp dir would
	// make them ask about trust again.
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := &e2eEnv{
		t: t, bin: filepath.Join(dir, "swarm"), root: filepath.Join(dir, "state"),
		home: filepath.Join(dir, "home"), work: filepath.Join(dir, "work"), tmpdir: dir,
		socket: fmt.Sprintf("swarm-e2e-%d-%d", os.Getpid(), e2eSerial.Add(1)),
	}
	for _, d := range []string{e.home, e.work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(e.bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.teardown)
	return e
}

// teardown ends every worker, the private tmux server and anything that escaped them, and
// fails the test if something had to be killed by force.
func (e *e2eEnv) teardown() {
	_, _ = e.run("kill", "--all", "--grace", "2")
	kill := exec.Command("tmux", "-L", e.socket, "kill-server")
	kill.Env = append(os.Environ(), "TMUX_TMPDIR="+e.tmpdir)
	_ = kill.Run()
	if left := reapStragglers("SWARM_DIR=" + e.root); len(left) > 0 {
		e.t.Errorf("test left processes running: %s", strings.Join(left, "; "))
	}
}

func (e *e2eEnv) environ() []string {
	return append(os.Environ(), "SWARM_DIR="+e.root, "SWARM_TMUX_SOCKET="+e.socket, "TMUX=",
		"TMUX_TMPDIR="+e.tmpdir, "HOME="+e.home)
}

// run runs swarm in the work directory and returns its combined output.
func (e *e2eEnv) run(args ...string) (string, error) {
	cmd := exec.Command(e.bin, args...)
	cmd.Dir = e.work
	cmd.Env = e.environ()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// must runs swarm and fails the test when it exits non-zero.
func (e *e2eEnv) must(args ...string) string {
	e.t.Helper()
	out, err := e.run(args...)
	if err != nil {
		e.t.Fatalf("swarm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (e *e2eEnv) writeWork(name, content string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.work, name), []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func (e *e2eEnv) loopFile(name, file string) string {
	data, _ := os.ReadFile(filepath.Join(e.root, "ralph", name, file))
	return string(data)
}

func (e *e2eEnv) loopState(name string) map[string]any {
	var st map[string]any
	if err := json.Unmarshal([]byte(e.loopFile(name, "state.json")), &st); err != nil {
		return nil
	}
	return st
}

// waitLoop polls the loop's state until cond holds, and on time-out fails with everything
// a reader needs: the state, the monitor's log and the screen.
func (e *e2eEnv) waitLoop(name string, timeout time.Duration, cond func(map[string]any) bool) map[string]any {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		st := e.loopState(name)
		if st != nil && cond(st) {
			return st
		}
		if time.Now().After(deadline) {
			screen, _ := e.run("peek", name, "-n", "40")
			e.t.Fatalf("loop %s: condition not reached in %s; state %v\nmonitor log:\n%s\nscreen:\n%s",
				name, timeout, st, e.loopFile(name, "monitor.log"), screen)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// dump is what a failing loop test shows: the monitor's log and the last saved screen.
func (e *e2eEnv) dump(name string) string {
	st := e.loopState(name)
	n := 0
	if it, ok := st["current_iteration"].(float64); ok {
		n = int(it)
	}
	return fmt.Sprintf("state %v\nmonitor log:\n%s\nscreen of iteration %d:\n%s", st, e.loopFile(name, "monitor.log"),
		n, e.loopFile(name, fmt.Sprintf("screens/iteration-%d.txt", n)))
}

// waitScreenGone polls the worker's screen until no line matches re.
func (e *e2eEnv) waitScreenGone(name, re string, timeout time.Duration) {
	e.t.Helper()
	rx := regexp.MustCompile("(?m)" + re)
	deadline := time.Now().Add(timeout)
	for {
		out, err := e.run("peek", name, "-n", "200")
		if err == nil && !rx.MatchString(out) {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("screen of %s still matches %q after %s:\n%s", name, re, timeout, out)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// waitDone waits for the loop to end and requires that its done pattern ended it at
// iteration n.
func (e *e2eEnv) waitDone(name string, timeout time.Duration, n int) map[string]any {
	e.t.Helper()
	st := e.waitLoop(name, timeout, loopEnded)
	if st["status"] != "stopped" || st["exit_reason"] != "done_pattern" || st["current_iteration"] != float64(n) {
		e.t.Fatalf("loop ended as %v/%v at iteration %v, want stopped/done_pattern at %d\n%s",
			st["status"], st["exit_reason"], st["current_iteration"], n, e.dump(name))
	}
	e.waitMonitorGone(name)
	return st
}

// waitMonitorGone waits for the loop's monitor to let go of it: the monitor records the end
// first and writes its last log lines a moment later.
func (e *e2eEnv) waitMonitorGone(name string) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _ := e.run("ralph", "status", name)
		if strings.Contains(out, "Monitor: not running") {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the monitor of %s still runs 10 s after the loop ended:\n%s", name, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func loopEnded(st map[string]any) bool { return st["status"] == "stopped" || st["status"] == "failed" }

// waitWorkerStopped polls the worker's process status (not its state word, which for a loop's
// worker is the loop's: done, killed, ...) until it is stopped.
func (e *e2eEnv) waitWorkerStopped(name string, timeout time.Duration) {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		out, _ := e.run("status", "--format", "json", name)
		var w struct {
			Status string `json:"status"`
		}
		if json.Unmarshal([]byte(out), &w) == nil && w.Status == "stopped" {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("worker %s not stopped after %s: %s", name, timeout, out)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// waitScreen polls the worker's screen until a line matches re.
func (e *e2eEnv) waitScreen(name, re string, timeout time.Duration) string {
	e.t.Helper()
	rx := regexp.MustCompile("(?m)" + re)
	deadline := time.Now().Add(timeout)
	for {
		out, err := e.run("peek", name, "-n", "200")
		if err == nil && rx.MatchString(out) {
			return out
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("screen of %s never matched %q in %s:\n%s", name, re, timeout, out)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// expectLog fails the test for every wanted line missing from a log.
func expectLog(t *testing.T, what, log string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(log, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, log)
		}
	}
}

// expectNoExtraEnter fails the test when Enter was pressed again on a prompt without the prompt
// being seen still in the agent's input: that second Enter went into an agent that may well
// have taken the prompt. One pressed on a prompt left in the input is the loop doing its job
// on a loaded machine, where an agent can miss an Enter (that the model got the prompt once
// is checked apart).
func expectNoExtraEnter(t *testing.T, iterations string) {
	t.Helper()
	for _, l := range strings.Split(iterations, "\n") {
		if strings.Contains(l, "[RETRY]") && !strings.Contains(l, "prompt still in the agent's input") {
			t.Errorf("Enter was pressed again on a prompt not seen in the agent's input:\n%s", iterations)
			return
		}
	}
	if strings.Contains(iterations, "[RETRY]") {
		t.Logf("the agent missed an Enter and was given another:\n%s", iterations)
	}
}

// envFlags turns KEY=VALUE pairs into spawn's --env flags.
func envFlags(kv []string) []string {
	var flags []string
	for _, x := range kv {
		flags = append(flags, "--env", x)
	}
	return flags
}
