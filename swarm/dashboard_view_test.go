package swarm

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

var updateGolden = flag.Bool("update", false, "rewrite the dashboard's golden frames")

var frameNow = time.Date(2026, 11, 25, 14, 26, 44, 0, time.UTC)

func cost(v float64) *float64 { return &v }

// goldenRows are a loop, a chain, an agent and plain workers in the states a person meets.
func goldenRows() []dashRow {
	return []dashRow{
		{Name: "builder", Kind: "loop", State: "working", Tone: toneBusy, Iteration: "7/20", Changed: frameNow.Add(-2 * time.Second), Failures: 2, Cost: cost(1.42), Tmux: true, Loop: true},
		{Name: "planner", Kind: "chain", State: "done", Tone: toneGood, Iteration: "5/5", Changed: frameNow.Add(-3 * time.Minute), Failures: 0, Cost: cost(0.81), Tmux: true, Loop: true},
		{Name: "fix-42", Kind: "loop", State: "blocked: trust-folder", Tone: toneWarn, Iteration: "1/10", Changed: frameNow.Add(-70 * time.Second), Failures: 0, Tmux: true, Loop: true},
		{Name: "inbox", Kind: "agent", State: "waiting: limit until 19:30", Tone: toneWarn, Iteration: "12/50", Changed: frameNow.Add(-40 * time.Minute), Failures: 1, Cost: cost(4.10), Tmux: true, Loop: true},
		{Name: "tests", Kind: "plain", State: "running", Tone: toneBusy, Iteration: "-", Failures: -1},
		{Name: "a-very-long-worker-name-that-is-cut", Kind: "plain", State: "stopped (exit 1)", Tone: toneBad, Iteration: "-", Failures: -1, Tmux: true},
	}
}

func goldenView(height int) dashView {
	rows := goldenRows()
	return dashView{
		Snap: dashSnapshot{Rows: rows, Regent: 4242, Now: frameNow}, Rows: rows, Width: 100, Height: height,
		Screen: []string{"● Reading ralph/loop.go", "● Editing ralph/decide.go", "", "✻ Worked for 42s", "❯ "},
		Events: []string{
			"2026-11-25T14:25:01 [END] iteration 6 exit=0 duration=4m",
			"[14:26:40]  " + regentMark + "Tests passed ✅ — commit abc1234 kept",
			"2026-11-25T14:26:41 [START] iteration 7/20",
		},
	}
}

func TestDashboardGoldenFrames(t *testing.T) {
	for name, v := range map[string]dashView{
		"once":      goldenView(0),
		"terminal":  goldenView(24),
		"filtered":  func() dashView { v := goldenView(16); v.Rows, v.Filter = v.Rows[2:3], "blocked"; return v }(),
		"empty":     {Snap: dashSnapshot{Now: frameNow}, Width: 80, Height: 0},
		"help":      func() dashView { v := goldenView(24); v.Help = true; return v }(),
		"selection": func() dashView { v := goldenView(24); v.Selected = 4; v.Events = nil; return v }(),
	} {
		t.Run(name, func(t *testing.T) {
			got := renderDashboard(v, newDashStyles(false))
			path := filepath.Join("testdata", "dashboard", name+".golden")
			if *updateGolden {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./swarm -run Golden -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("frame differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
			}
			if v.Height > 0 {
				if n := strings.Count(got, "\n") + 1; n != v.Height {
					t.Errorf("%d lines on a terminal of %d", n, v.Height)
				}
			}
			for i, line := range strings.Split(got, "\n") {
				if w := ansi.StringWidth(line); w > v.Width {
					t.Errorf("line %d is %d cells on a terminal of %d: %q", i+1, w, v.Width, line)
				}
			}
		})
	}
}

// In colour the state is coloured by what it means, the selection reversed, Regent lines orange.
func TestDashboardColours(t *testing.T) {
	got := renderDashboard(goldenView(24), newDashStyles(true))
	for what, want := range map[string]string{
		"failed in red":       "\x1b[38;5;196mstopped (exit 1)",
		"blocked in amber":    "\x1b[38;5;214mblocked: trust-folder",
		"selection reversed":  "\x1b[7m▸ builder",
		"Regent line orange":  "\x1b[38;5;208m [14:26:40]  🛡️  Regent: Tests passed",
		"done in green":       "\x1b[38;5;42mdone",
		"running in blue":     "\x1b[38;5;39mrunning",
		"no colour elsewhere": "  planner  ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("%s: frame lacks %q", what, want)
		}
	}
}

// One frame with a hundred workers must draw in well under a frame's time at 60 Hz (16 ms).
func BenchmarkDashboardFrame(b *testing.B) {
	rows := make([]dashRow, 100)
	for i := range rows {
		rows[i] = goldenRows()[i%6]
		rows[i].Name = fmt.Sprintf("worker-%03d", i)
	}
	v := dashView{Snap: dashSnapshot{Rows: rows, Regent: 1, Now: frameNow}, Rows: rows, Width: 200, Height: 60,
		Selected: 50, Screen: make([]string, 40), Events: goldenView(0).Events}
	for i := range v.Screen {
		v.Screen[i] = strings.Repeat("output of the agent ", 8)
	}
	styles := newDashStyles(true)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		_ = renderDashboard(v, styles)
	}
	perFrame := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(perFrame.Microseconds())/1000, "ms/frame")
	if perFrame > 16*time.Millisecond {
		b.Errorf("a frame of 100 workers took %v, more than 16ms", perFrame)
	}
}

// The words for a loop's states, from its state file's facts.
func TestDashboardLoopWords(t *testing.T) {
	now := frameNow
	at := func(d time.Duration) string { return now.Add(d).Format(ralph.TimeFormat) }
	for _, c := range []struct {
		st   ralph.State
		want string
	}{
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseWorking, LastScreenChange: at(-2 * time.Second)}, "working"},
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseWorking, LastScreenChange: at(-time.Minute)}, "idle"},
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseStarting, BlockedBy: "trust-folder"}, "blocked: trust-folder"},
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseWorking, NeedsPermission: "Bash"}, "needs permission"},
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseBackoff, BackoffUntil: at(8 * time.Second)}, "backoff 8s"},
		{ralph.State{Status: ralph.StatusRunning, Phase: ralph.PhaseDelivering}, "starting"},
		{ralph.State{Status: ralph.StatusPaused}, "paused"},
		{ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures"}, "failed (consecutive_failures)"},
		{ralph.State{Status: ralph.StatusStopped, ExitReason: "done_file"}, "done"},
		{ralph.State{Status: ralph.StatusStopped, ExitReason: "max_iterations"}, "stopped (max_iterations)"},
		{ralph.State{Status: ralph.StatusWaiting, WaitingUntil: time.Date(2026, 11, 25, 19, 30, 0, 0, time.Local).Format(ralph.TimeFormat)}, "waiting: limit until 19:30"},
	} {
		if got, _ := loopWords(&c.st, now); got != c.want {
			t.Errorf("%+v: %q, want %q", c.st, got, c.want)
		}
	}
}

func TestDashboardWorkerWords(t *testing.T) {
	code := 3
	for _, c := range []struct {
		w        state.Worker
		activity time.Time
		want     string
	}{
		{state.Worker{Status: state.StatusRunning, Tmux: &state.TmuxInfo{}}, frameNow.Add(-time.Second), "working"},
		{state.Worker{Status: state.StatusRunning, Tmux: &state.TmuxInfo{}}, frameNow.Add(-time.Hour), "idle"},
		{state.Worker{Status: state.StatusRunning}, time.Time{}, "running"},
		{state.Worker{Status: state.StatusStopped, ExitCode: &code}, time.Time{}, "stopped (exit 3)"},
		{state.Worker{Status: state.StatusOrphaned}, time.Time{}, "orphaned"},
	} {
		if got, _ := workerWords(&c.w, c.activity, frameNow); got != c.want {
			t.Errorf("%+v: %q, want %q", c.w, got, c.want)
		}
	}
}
