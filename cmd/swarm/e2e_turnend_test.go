package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

// How soon the next iteration starts once the real Claude Code's turn ended without the done
// marker, side by side: by the agent's own Stop signal, and by the screen alone (inactivity,
// at its shortest useful timeout here). Both loops get the same model: iteration 1 answers
// without doing the task, iteration 2 does it.
func TestE2EClaudeTurnEndLatency(t *testing.T) {
	requireAgentsAlone(t)
	run := func(name string, flags ...string) (sinceReply, sinceStop time.Duration) {
		e := newE2EEnv(t)
		api, prompt := idleThenMakeFile(t)
		claudeLoop(t, e, api, fullySetUp(e.work), name, prompt, append([]string{"--max-iterations", "3"}, flags...)...)
		// Each agent gets a new events file: iteration 1's Stop is caught while it is there.
		stop := watchEvent(e, name, "Stop", 60*time.Second)
		e.waitDone(name, 120*time.Second, 2)
		second := iterationStart(t, e, name, 2)
		var reply time.Time
		for _, r := range api.Requests() {
			if r.MainCall == 1 {
				reply = r.Time
			}
		}
		sinceReply = second.Sub(reply)
		if !stop.IsZero() {
			sinceStop = second.Sub(stop)
		}
		return sinceReply, sinceStop
	}
	bySignal, sinceStop := run("sig", "--inactivity-timeout", "120")
	byScreen, _ := run("scr", "--inactivity-timeout", "3", "--no-agent-signals")
	t.Logf("turn end to the next iteration's start: by the Stop signal %s (%s after the signal), by the screen (3 s inactivity) %s",
		bySignal.Round(time.Millisecond), sinceStop.Round(time.Millisecond), byScreen.Round(time.Millisecond))
	if sinceStop <= 0 || sinceStop > time.Second {
		t.Errorf("the next iteration started %s after the agent's Stop signal, want within 1 s", sinceStop)
	}
	if bySignal >= byScreen {
		t.Errorf("by the signal (%s) no sooner than by the screen (%s)", bySignal, byScreen)
	}
}

// iterationStart is when iteration n of the loop started, from its iterations.jsonl.
func iterationStart(t *testing.T, e *e2eEnv, name string, n int) time.Time {
	t.Helper()
	for _, line := range strings.Split(e.loopFile(name, "iterations.jsonl"), "\n") {
		var r ralph.IterationRecord
		if json.Unmarshal([]byte(line), &r) == nil && r.Iteration == n {
			at := ralph.ParseTime(r.StartedAt)
			if at.IsZero() {
				t.Fatalf("iteration %d's start %q cannot be read", n, r.StartedAt)
			}
			return at
		}
	}
	t.Fatalf("no record of iteration %d:\n%s", n, e.loopFile(name, "iterations.jsonl"))
	return time.Time{}
}

// watchEvent waits up to timeout for the loop's current agent to report event, and returns
// when it did; zero when it did not (an agent that gives no signals).
func watchEvent(e *e2eEnv, name, event string, timeout time.Duration) time.Time {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if at := firstEvent(e, name, event); !at.IsZero() {
			return at
		}
		if st := e.loopState(name); st != nil && loopEnded(st) {
			return time.Time{}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return time.Time{}
}

// firstEvent is when the agent first reported event, from the loop's agent-events.jsonl
// (zero when it never did, or the file is gone).
func firstEvent(e *e2eEnv, name, event string) time.Time {
	f, err := os.Open(filepath.Join(e.root, "ralph", name, "box/agent-events.jsonl"))
	if err != nil {
		return time.Time{}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev ralph.AgentEvent
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Event == event {
			at, _ := time.Parse(time.RFC3339Nano, ev.At)
			return at
		}
	}
	return time.Time{}
}
