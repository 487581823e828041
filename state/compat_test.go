package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseTimeReadsZonelessAsLocal(t *testing.T) {
	cases := map[string]time.Time{
		"2026-11-22T11:47:27.246975":       time.Date(2026, 11, 22, 11, 47, 27, 246975000, time.Local),
		"2026-11-22T11:47:27":              time.Date(2026, 11, 22, 11, 47, 27, 0, time.Local),
		"2026-11-22 11:47:27.5":            time.Date(2026, 11, 22, 11, 47, 27, 500000000, time.Local),
		"2026-11-22T11:47:27.246975+02:00": time.Date(2026, 11, 22, 9, 47, 27, 246975000, time.UTC),
		"":                                 {},
	}
	for in, want := range cases {
		got, err := ParseTime(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseTime("yesterday"); err == nil {
		t.Error("ParseTime(yesterday) succeeded")
	}
}

func TestPythonRecordsAreReadAndWrittenBackWhole(t *testing.T) {
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	py := `{"workers": [
	  {"name": "w", "status": "running", "cmd": ["claude"], "started": "2026-11-22T11:47:27.246975",
	   "cwd": "/src", "env": {"K": "v"}, "tags": ["a"],
	   "tmux": {"session": "swarm-1a2b3c4d", "window": "w", "socket": null},
	   "worktree": {"path": "/src-worktrees/w", "branch": "w", "base_repo": "/src"},
	   "pid": null, "metadata": {"ralph": true}},
	  {"name": "odd", "cmd": 7}
	]}`
	if err := os.WriteFile(d.statePath(), []byte(py), 0o600); err != nil {
		t.Fatal(err)
	}
	var warnings []string
	err = d.UpdateWorkers(func(e error) { warnings = append(warnings, e.Error()) }, func(ws *Workers) error {
		w := ws.Get("w")
		if w == nil || w.Tmux.Socket != "" || w.Tmux.Session != "swarm-1a2b3c4d" || w.Worktree.BaseRepo != "/src" || w.Env["K"] != "v" {
			t.Fatalf("record read as %+v", w)
		}
		if want := time.Date(2026, 11, 22, 11, 47, 27, 246975000, time.Local); !w.Started.Equal(want) {
			t.Errorf("started = %v, want %v", w.Started, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "record 2") {
		t.Errorf("warnings = %q, want one about record 2", warnings)
	}
	data, _ := os.ReadFile(d.statePath())
	for _, want := range []string{`"cmd": 7`, `"name": "odd"`, `"ralph": true`, `"started": "2026-11-22T11:47:27.246975`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("rewritten state lacks %s:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), `"started": "2026-11-22T11:47:27.246975"`) {
		t.Errorf("time written without a zone:\n%s", data)
	}
	if m, _ := filepath.Glob(d.statePath() + ".corrupt-*"); len(m) > 0 {
		t.Errorf("a readable file was set aside: %v", m)
	}
}
