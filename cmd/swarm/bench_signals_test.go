package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// Target: a loop on Claude Code whose agent goes quiet without the done marker starts its next
// iteration within 1 s of the agent's Stop signal (median), where the same agent read from its
// screen alone waits out the inactivity timeout (2 s here, 60 s by default). Two loops run side
// by side: one given the agent's signals, one with --no-agent-signals. The agent is the demo
// agent playing Claude Code (its hooks from the --settings file); it stamps the time just
// before its turn ends and as it starts, and a restart's gap is the next start minus that stamp.
func BenchmarkTurnEndRestart(b *testing.B) {
	const iterations = 6
	s := newBenchSwarm(b)
	stamps := filepath.Join(s.work, "stamps")
	bin := filepath.Join(s.work, "bin")
	for _, d := range []string{stamps, bin} {
		if err := os.Mkdir(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	// Named claude, as swarm knows the agent by its command's name.
	claude := filepath.Join(bin, "claude")
	script := fmt.Sprintf("#!/bin/sh\nexec '%s' demo-agent --like claude \"$@\"\n", s.bin)
	if err := os.WriteFile(claude, []byte(script), 0o755); err != nil {
		b.Fatal(err)
	}
	prompt := filepath.Join(s.work, "QUIET.md")
	text := fmt.Sprintf("@stamp %s/$SWARM_WORKER.out\n@say nothing to do yet\n", stamps)
	if err := os.WriteFile(prompt, []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
	loops := map[string][]string{
		"signal":     {"--inactivity-timeout", "60"},
		"inactivity": {"--inactivity-timeout", "2", "--no-agent-signals"},
	}
	gaps := map[string][]time.Duration{}
	benchOnce(b, func() {
		for name, flags := range loops {
			args := append([]string{"spawn", "--name", name, "--ralph", "--prompt-file", prompt,
				"--max-iterations", fmt.Sprint(iterations)}, flags...)
			s.run(append(args, "--", claude, "--stamp", filepath.Join(stamps, name+".start"))...)
		}
		for name := range loops {
			st := s.waitLoop(name, 120*time.Second, func(st benchLoopState) bool { return st.Status != "running" })
			if st.ExitReason != "max_iterations" || st.CurrentIteration != iterations {
				b.Fatalf("loop %s ended as %+v; want max_iterations after %d", name, st, iterations)
			}
			gaps[name] = benchRestartGaps(b, stamps, name)
			if len(gaps[name]) != iterations-1 {
				b.Fatalf("loop %s: %d restarts recorded, want %d", name, len(gaps[name]), iterations-1)
			}
		}
	})
	s.run("kill", "--all", "--grace", "1")
	for _, name := range []string{"signal", "inactivity"} {
		g := slices.Clone(gaps[name])
		slices.Sort(g)
		b.ReportMetric(float64(g[len(g)/2])/float64(time.Millisecond), name+"-median-ms")
		b.ReportMetric(float64(g[len(g)-1])/float64(time.Millisecond), name+"-max-ms")
	}
	sig := slices.Clone(gaps["signal"])
	slices.Sort(sig)
	if median := sig[len(sig)/2]; median > time.Second {
		b.Errorf("the next iteration started %v after the agent's Stop signal (median), want within 1s", median)
	}
}
