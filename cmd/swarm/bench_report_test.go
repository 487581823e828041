package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/cost"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/land"
)

// A night of 50 loops × 100 iterations.
const reportLoops, reportIterations = 50, 100

// Target: median under 1 s for each format. swarm report reads every loop's state and every
// iteration record of a night: 50 loops of 100 iterations each, in the records' own formats
// (worker records, state.json, iterations.jsonl, landing records), made here rather than run.
func BenchmarkReportNight(b *testing.B) {
	s := newBenchSwarm(b)
	benchNight(b, s.dir, time.Now())
	for _, format := range []string{"text", "json"} {
		b.Run("format="+format, func(b *testing.B) {
			var ds []time.Duration
			var out []byte
			for b.Loop() {
				var d time.Duration
				d, out = s.run("report", "--format", format)
				ds = append(ds, d)
			}
			checkNight(b, format, out)
			reportMedian(b, ds)
		})
	}
}

// checkNight makes sure the report read the whole night.
func checkNight(b *testing.B, format string, out []byte) {
	b.Helper()
	total := reportLoops * reportIterations
	if format == "text" {
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^TOTAL +%d workers +%d: `, reportLoops, total)).Match(out) {
			b.Fatalf("the report misses part of the night:\n%s", out)
		}
		return
	}
	var r struct {
		Workers []json.RawMessage `json:"workers"`
		Totals  struct {
			Outcomes struct {
				Total int `json:"total"`
			} `json:"outcomes"`
		} `json:"totals"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Workers) != reportLoops || r.Totals.Outcomes.Total != total {
		b.Fatalf("report: %d workers, %d iterations (%v); want %d and %d", len(r.Workers), r.Totals.Outcomes.Total, err, reportLoops, total)
	}
}

// benchNight writes the records a night of loops leaves in the state directory root, the
// last of them ending at now: each loop's worker record, state, iteration records (a mix of
// every way an iteration ends, with waits, costs and checks) and, for one loop in five, its
// landing record.
func benchNight(b *testing.B, root string, now time.Time) {
	b.Helper()
	d, err := state.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	start := now.Add(-20 * time.Hour)
	if err := os.MkdirAll(land.Root(d), 0o700); err != nil {
		b.Fatal(err)
	}
	err = d.UpdateWorkers(nil, func(ws *state.Workers) error {
		for i := range reportLoops {
			ws.Put(&state.Worker{Name: nightName(i), Status: state.StatusStopped, Cmd: []string{"claude"}, Started: start,
				Cwd: root, Tags: []string{}, Metadata: map[string]any{"ralph": true}})
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for i := range reportLoops {
		name := nightName(i)
		ld := ralph.DirFor(d, name)
		st := &ralph.State{WorkerName: name, MaxIterations: reportIterations, CurrentIteration: reportIterations,
			Status: ralph.StatusStopped, ExitReason: "max_iterations", Phase: ralph.PhaseEnded, RunID: name,
			Started: start.Format(ralph.TimeFormat), Ended: now.Format(ralph.TimeFormat), Agent: "claude"}
		if err := ld.Create(st); err != nil {
			b.Fatal(err)
		}
		writeNightIterations(b, ld, name, start, now)
		if i%5 == 0 {
			rec := land.Record{Worker: name, State: land.BreaksTests, Branch: name, Target: "main",
				Reason: "make test: exit 2", ResumedLoop: now.Format(time.RFC3339), Updated: now.Format(time.RFC3339)}
			if err := state.WriteJSON(filepath.Join(land.Root(d), name+".json"), rec); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func nightName(i int) string { return fmt.Sprintf("loop%02d", i) }

// writeNightIterations writes a loop's iterations.jsonl in one go, its iterations spread
// evenly from start to now.
func writeNightIterations(b *testing.B, ld ralph.Dir, name string, start, now time.Time) {
	b.Helper()
	step := now.Sub(start) / reportIterations
	reasons := []string{"exit", "exit", "inactivity", "turn_end", "hang", "iteration_timeout", "api_error", "done", "usage_limit", "context_limit"}
	var lines strings.Builder
	for n := 1; n <= reportIterations; n++ {
		began, ended := start.Add(time.Duration(n-1)*step), start.Add(time.Duration(n)*step)
		code, usd := n%3, 0.01*float64(n%7)
		r := ralph.IterationRecord{RunID: name, Iteration: n, Agent: "claude", StartedAt: began.Format(time.RFC3339Nano),
			EndedAt: ended.Format(time.RFC3339Nano), DurationMs: step.Milliseconds(), ExitCode: &code,
			EndReason: reasons[n%len(reasons)], Signals: []string{}, Commits: []string{fmt.Sprintf("%040d", n)},
			Tokens: &cost.Usage{Input: 1000, Output: 200, CacheRead: 5000}, Cost: &usd, RolledBack: n%17 == 0}
		if r.EndReason == "api_error" {
			r.Error = "API Error: 529 overloaded"
		}
		if n%4 == 0 {
			r.Checks = []ralph.CheckResult{{Name: "command:make test", Passed: n%8 == 0, Message: "exit 2"}}
		}
		if n%5 == 0 {
			r.Waited = &ralph.Waits{BackoffMs: 4000, LimitMs: 60_000, PersonMs: 1500}
		}
		data, err := json.Marshal(r)
		if err != nil {
			b.Fatal(err)
		}
		lines.Write(data)
		lines.WriteByte('\n')
	}
	if err := os.WriteFile(ld.IterationsJSONL(), []byte(lines.String()), 0o600); err != nil {
		b.Fatal(err)
	}
}
