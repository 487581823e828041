package dashboard

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

var updateGolden = flag.Bool("update", false, "rewrite the dashboard's golden frames")

var frameNow = time.Date(2026, 11, 25, 14, 26, 44, 0, time.UTC)

func cost(v float64) *float64 { return &v }

// goldenRows are a loop, a chain, an agent and plain workers in the states a person meets.
func goldenRows() []Row {
	return []Row{
		{Name: "builder", Kind: "loop", State: "working", Tone: ToneBusy, Iteration: "7/20", Changed: frameNow.Add(-2 * time.Second), Failures: 2, Cost: cost(1.42), Tmux: true, Loop: true},
		{Name: "planner", Kind: "chain", State: "done", Tone: ToneGood, Iteration: "5/5", Changed: frameNow.Add(-3 * time.Minute), Failures: 0, Cost: cost(0.81), Tmux: true, Loop: true},
		{Name: "fix-42", Kind: "loop", State: "blocked (dialog: trust-folder)", Tone: ToneWarn, Iteration: "1/10", Changed: frameNow.Add(-70 * time.Second), Failures: 0, Tmux: true, Loop: true},
		{Name: "inbox", Kind: "agent", State: "waiting: limit until 19:30", Tone: ToneWarn, Iteration: "12/50", Changed: frameNow.Add(-40 * time.Minute), Failures: 1, Cost: cost(4.10), Tmux: true, Loop: true},
		{Name: "tests", Kind: "plain", State: "running", Tone: ToneBusy, Iteration: "-", Failures: -1},
		{Name: "a-very-long-worker-name-that-is-cut", Kind: "plain", State: "stopped (exit 1)", Tone: ToneBad, Iteration: "-", Failures: -1, Tmux: true},
	}
}

// wideRows are the golden rows and the longest states a person meets: a permission asked
// for, a branch sent back, a failed loop, a worker whose branch landed.
func wideRows() []Row {
	return append(goldenRows(),
		Row{Name: "perm", Kind: "loop", State: "blocked (permission: Bash(rm -rf build))", Tone: ToneWarn, Iteration: "3/20", Changed: frameNow.Add(-5 * time.Minute), Failures: 0, Tmux: true, Loop: true},
		Row{Name: "night-3", Kind: "loop", State: "stopped (max_iterations) · sent back: breaks tests", Tone: ToneWarn, Iteration: "20/20", Changed: frameNow.Add(-2 * time.Hour), Failures: 3, Cost: cost(2.5), Tmux: true, Loop: true},
		Row{Name: "night-1", Kind: "loop", State: "failed (consecutive_failures)", Tone: ToneBad, Iteration: "5/20", Changed: frameNow.Add(-6 * time.Hour), Failures: 5, Tmux: true, Loop: true},
		Row{Name: "fmt", Kind: "plain", State: "stopped (exit 0) · landed abc1234", Tone: ToneQuiet, Iteration: "-", Failures: -1, Tmux: true},
	)
}

func goldenView(height int) frame {
	rows := goldenRows()
	return frame{
		Snap: Snapshot{Rows: rows, Regent: 4242, Now: frameNow}, Rows: rows, Width: 100, Height: height,
		Screen: []string{"● Reading ralph/loop.go", "● Editing ralph/decide.go", "", "✻ Worked for 42s", "❯ "},
		Events: []string{
			"2026-11-25T14:25:01 [END] iteration 6 exit=0 duration=4m",
			"[14:26:40]  " + regentMark + "Tests passed ✅ — commit abc1234 kept",
			"2026-11-25T14:26:41 [START] iteration 7/20",
		},
	}
}

func TestDashboardGoldenFrames(t *testing.T) {
	for name, v := range map[string]frame{
		"once":      goldenView(0),
		"terminal":  goldenView(24),
		"filtered":  func() frame { v := goldenView(16); v.Rows, v.Filter = v.Rows[2:3], "blocked"; return v }(),
		"empty":     {Snap: Snapshot{Now: frameNow}, Width: 80, Height: 0},
		"help":      func() frame { v := goldenView(24); v.Help = true; return v }(),
		"selection": func() frame { v := goldenView(24); v.Selected = 4; v.Events = nil; return v }(),
		"wide":      wideView(),
	} {
		t.Run(name, func(t *testing.T) {
			got := render(v, newStyles(false))
			path := filepath.Join("testdata", name+".golden")
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
				t.Fatalf("%v (go test ./swarm/dashboard -run Golden -update writes it)", err)
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

// wideView is a frame of the longest states on a terminal of 160 columns, in attention order.
func wideView() frame {
	v := goldenView(30)
	v.Rows, v.Width = wideRows(), 160
	v.Snap.Rows = v.Rows
	sortRows(v.Rows, sortAttention)
	return v
}

// At 160 columns every state is shown whole, however long; on a narrower terminal the state
// column takes the room there is and the line is cut at the terminal's edge.
func TestDashboardStatesWholeAt160Columns(t *testing.T) {
	got := render(wideView(), newStyles(false))
	for _, r := range wideRows() {
		if !strings.Contains(got, " "+r.State+" ") {
			t.Errorf("the state %q is not whole at 160 columns:\n%s", r.State, got)
		}
	}
	narrow := wideView()
	narrow.Width = 100
	for i, line := range strings.Split(render(narrow, newStyles(false)), "\n") {
		if w := ansi.StringWidth(line); w > 100 {
			t.Errorf("line %d is %d cells on a terminal of 100", i+1, w)
		}
	}
}

// In colour the state is coloured by what it means, the selection reversed, Regent lines orange.
func TestDashboardColours(t *testing.T) {
	got := render(goldenView(24), newStyles(true))
	for what, want := range map[string]string{
		"failed in red":       "\x1b[38;5;196mstopped (exit 1)",
		"blocked in amber":    "\x1b[38;5;214mblocked (dialog: trust-folder)",
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
	rows := make([]Row, 100)
	for i := range rows {
		rows[i] = goldenRows()[i%6]
		rows[i].Name = fmt.Sprintf("worker-%03d", i)
	}
	v := frame{Snap: Snapshot{Rows: rows, Regent: 1, Now: frameNow}, Rows: rows, Width: 200, Height: 60,
		Selected: 50, Screen: make([]string, 40), Events: goldenView(0).Events}
	for i := range v.Screen {
		v.Screen[i] = strings.Repeat("output of the agent ", 8)
	}
	styles := newStyles(true)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		_ = render(v, styles)
	}
	perFrame := time.Since(start) / time.Duration(b.N)
	b.ReportMetric(float64(perFrame.Microseconds())/1000, "ms/frame")
	if perFrame > 16*time.Millisecond {
		b.Errorf("a frame of 100 workers took %v, more than 16ms", perFrame)
	}
}
