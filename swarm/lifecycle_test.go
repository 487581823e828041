package swarm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state"
)

func TestKillEndsTheGroupAndKeepsTheRecord(t *testing.T) {
	te := newTestEnv(t)
	w := te.spawn("w1", "")
	if err := runKill(te.env, killOptions{Names: []string{"w1"}, Grace: 1}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "killed w1\n" {
		t.Errorf("printed %q", got)
	}
	if kills := te.Processes.Kills(); len(kills) != 1 || kills[0] != w.PID {
		t.Errorf("kills %v, want the worker's group %d", kills, w.PID)
	}
	rec := te.record("w1")
	if rec == nil || rec.Status != state.StatusStopped || rec.ExitCode == nil || *rec.ExitCode != 143 {
		t.Fatalf("record after kill: %+v", rec)
	}
	if _, ok := te.Fake.Get(w.Tmux.PaneID); ok {
		t.Error("the window is still there")
	}
	wantErr(t, killOptions{Grace: -1}.check(), 1, "--grace must not be negative")
}

func TestKillAllOnlyRunningWorkers(t *testing.T) {
	te := newTestEnv(t)
	te.spawn("a", "")
	b := te.spawn("b", "")
	te.exit(b, 0)
	if err := runKill(te.env, killOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "killed a\n" {
		t.Errorf("printed %q", got)
	}
}

func TestWaitReportsExitAndTimesOut(t *testing.T) {
	te := newTestEnv(t)
	a := te.spawn("a", "")
	te.spawn("b", "")
	te.exit(a, 0)
	err := runWait(te.env, waitOptions{Names: []string{"a", "b"}, Timeout: 0.05, Poll: 10 * time.Millisecond})
	wantErr(t, err, 1, "")
	if got := te.output(); got != "a: exited 0\nb: still running (timeout)\n" {
		t.Errorf("printed %q", got)
	}
	wantErr(t, waitOptions{Timeout: -1}.check(), 1, "--timeout must not be negative")
}

func TestCleanRemovesStoppedWorkersOnly(t *testing.T) {
	te := newTestEnv(t)
	te.spawn("live", "")
	done := te.spawn("done", "")
	te.exit(done, 0)
	wantErr(t, runClean(te.env, cleanOptions{Names: []string{"live"}}), 1, "cannot clean running worker 'live'")
	if err := runClean(te.env, cleanOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "cleaned done\n" {
		t.Errorf("printed %q", got)
	}
	if te.record("done") != nil || te.record("live") == nil {
		t.Error("clean removed the wrong records")
	}
	if err := runClean(te.env, cleanOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "nothing to clean\n" {
		t.Errorf("printed %q", got)
	}
}

func TestRespawnStartsTheSameCommandAgain(t *testing.T) {
	te := newTestEnv(t)
	w := te.spawn("w1", "", "t1")
	te.exit(w, 3)
	if err := runRespawn(te.env, respawnOptions{Args: []string{"w1"}}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "respawned w1 (tmux: swarm:w1)\n" {
		t.Errorf("printed %q", got)
	}
	rec := te.record("w1")
	if rec.Status != state.StatusRunning || rec.Tmux.PaneID == w.Tmux.PaneID || len(rec.Tags) != 1 || rec.Tags[0] != "t1" {
		t.Errorf("record after respawn: %+v", rec)
	}
	wantErr(t, respawnOptions{}.check(), 1, "usage: swarm respawn NAME")
}

func TestLsFormats(t *testing.T) {
	te := newTestEnv(t)
	if err := runLs(te.env, lsOptions{Format: "table", Status: "all"}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "no workers\n" {
		t.Errorf("empty table %q", got)
	}
	a := te.spawn("a", "", "x")
	if err := te.env.Dir().UpdateWorkers(nil, func(ws *state.Workers) error {
		ws.Get(a.Name).Env = map[string]string{"TOKEN": "s3cret"}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	b := te.spawn("b", "")
	te.exit(b, 2)
	if err := runLs(te.env, lsOptions{Format: "table", Status: "all"}); err != nil {
		t.Fatal(err)
	}
	table := te.output()
	for _, re := range []string{`^NAME +STATUS +WHERE +UPTIME +WORKTREE +TAGS\n`, `(?m)^a +running +swarm:a +\d+s +- +x$`, `(?m)^b +stopped \(exit 2\) +swarm:b +- +- +-$`} {
		if !regexp.MustCompile(re).MatchString(table) {
			t.Errorf("table lacks %s:\n%s", re, table)
		}
	}
	if err := runLs(te.env, lsOptions{Format: "names", Status: "running"}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "a\n" {
		t.Errorf("names %q", got)
	}
	if err := runLs(te.env, lsOptions{Format: "json", Status: "all", Tag: "x"}); err != nil {
		t.Fatal(err)
	}
	var list []map[string]any
	if err := json.Unmarshal([]byte(te.output()), &list); err != nil || len(list) != 1 || list[0]["name"] != "a" {
		t.Fatalf("json %v (%v)", list, err)
	}
	// The environment's keys are shown, never its values.
	if env, ok := list[0]["env"].(map[string]any); !ok || len(env) != 1 || env["TOKEN"] != "***" {
		t.Errorf("env in JSON output: %v, want {TOKEN: ***}", list[0]["env"])
	}
	wantErr(t, lsOptions{Format: "xml", Status: "all"}.check(), 1, "invalid --format 'xml' (expected table, json or names)")
	wantErr(t, lsOptions{Format: "table", Status: "dead"}.check(), 1, "invalid --status 'dead'")
}

func TestStatusExitCodes(t *testing.T) {
	te := newTestEnv(t)
	w := te.spawn("w1", "")
	if err := runStatus(te.env, statusOptions{Args: []string{"w1"}, Format: "text"}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); !regexp.MustCompile(`^w1: running \(tmux window swarm:w1, uptime \d+s\)\n$`).MatchString(got) {
		t.Errorf("status %q", got)
	}
	te.exit(w, 4)
	wantErr(t, runStatus(te.env, statusOptions{Args: []string{"w1"}, Format: "text"}), 1, "")
	// A worker that ended still says where it ran (and for how long, when its end is known).
	if got := te.output(); !regexp.MustCompile(`^w1: stopped \(exit 4, tmux window swarm:w1(, ran \d+s)?\)\n$`).MatchString(got) {
		t.Errorf("status %q", got)
	}
	wantErr(t, runStatus(te.env, statusOptions{Args: []string{"w1"}, Format: "json"}), 1, "")
	if got := te.output(); !strings.Contains(got, `"exit_code": 4`) || !strings.Contains(got, `"state": "stopped"`) {
		t.Errorf("json %q", got)
	}
	wantErr(t, runStatus(te.env, statusOptions{Args: []string{"no"}, Format: "text"}), 2, "no worker named 'no'")
	wantErr(t, statusOptions{Args: []string{"w1"}, Format: "yaml"}.check(), 1, "invalid --format 'yaml' (expected text or json)")
}

// A kill that cannot be recorded (a full disk, a broken state file) still ends the worker,
// and says it could not record it with a non-zero exit.
func TestKillIsHonouredWhenTheRecordCannotBeWritten(t *testing.T) {
	te := newTestEnv(t)
	w := te.spawn("w1", "")
	te.Processes.OnKill(func() {
		// The records cannot be written between the kill and its record (their lock cannot
		// be taken: a directory in its place; one in the records' place would be set aside).
		path := filepath.Join(te.Dir().Root, "state.lock")
		_ = os.Remove(path)
		_ = os.Mkdir(path, 0o700)
	})
	err := runKill(te.env, killOptions{Names: []string{"w1"}, Grace: 1})
	wantErr(t, err, 1, "stopped 'w1', but cannot record it")
	if p, ok := te.Fake.Get(w.Tmux.PaneID); ok && !p.Dead {
		t.Error("the worker still runs")
	}
	if got := te.output(); got != "killed w1\n" {
		t.Errorf("printed %q", got)
	}
}
