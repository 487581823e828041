package swarm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/internal/testmachine"
)

func TestRalphLsFormats(t *testing.T) {
	te := newLoopEnv(t)
	te.loop("b", ralph.State{Status: ralph.StatusStopped, ExitReason: "max_iterations", MaxIterations: 3, CurrentIteration: 3})
	a := te.loop("a", ralph.State{Status: ralph.StatusRunning, MaxIterations: 10, CurrentIteration: 2})
	testmachine.HoldMonitor(t, a)
	// Not loops: a file, a name swarm would never give, a directory without a state.
	for _, p := range []string{"ralph/notes.txt", "ralph/.hidden/x", "ralph/empty/x"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(te.Dir().Root, p)), 0o700); err != nil {
			t.Fatal(err)
		}
		writeLog(t, filepath.Join(te.Dir().Root, p), "x")
	}

	if err := runRalphLs(te.env, ralphLsOptions{Format: "table"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(te.output(), "\n"), "\n")
	want := []string{`^NAME +STATUS +ITERATION +COST +WORKER +MONITOR +EXIT REASON$`, `^a +running +2/10 +- +running +alive +-$`,
		`^b +stopped +3/3 +- +running +- +max_iterations$`}
	if len(lines) != len(want) {
		t.Fatalf("table %q", lines)
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("line %d %q does not match %s", i, lines[i], re)
		}
	}

	if err := runRalphLs(te.env, ralphLsOptions{Format: "names"}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "a\nb\n" {
		t.Errorf("names %q", got)
	}

	if err := runRalphLs(te.env, ralphLsOptions{Format: "json"}); err != nil {
		t.Fatal(err)
	}
	var views []map[string]any
	if err := json.Unmarshal([]byte(te.output()), &views); err != nil {
		t.Fatal(err)
	}
	if len(views) != 2 || views[0]["worker_name"] != "a" || views[0]["monitor_alive"] != true || views[1]["exit_reason"] != "max_iterations" {
		t.Errorf("json %v", views)
	}
	if te.errText() != "" {
		t.Error("warned about something that is not a loop")
	}
}

func TestRalphLsWithoutLoops(t *testing.T) {
	te := newLoopEnv(t)
	if err := runRalphLs(te.env, ralphLsOptions{Format: "table"}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "no ralph loops\n" {
		t.Errorf("table %q", got)
	}
	if err := runRalphLs(te.env, ralphLsOptions{Format: "json"}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "[]\n" {
		t.Errorf("json %q", got)
	}
	wantErr(t, ralphLsOptions{Format: "xml"}.check(), 1, "invalid --format 'xml' (expected table, json or names)")
}

func TestRalphLsNamesADamagedLoop(t *testing.T) {
	te := newLoopEnv(t)
	ld := te.loop("c", ralph.State{Status: ralph.StatusStopped})
	writeLog(t, filepath.Join(ld.Path, "state.json"), "[")
	if err := runRalphLs(te.env, ralphLsOptions{Format: "names"}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "" {
		t.Errorf("listed %q", got)
	}
	if got := te.errText(); !strings.HasPrefix(got, "swarm: warning: loop state "+filepath.Join(ld.Path, "state.json")+" is corrupt (kept as state.json.corrupt-") {
		t.Errorf("stderr %q", got)
	}
}
