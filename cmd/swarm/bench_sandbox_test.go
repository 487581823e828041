package main

import (
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/sandbox"
)

// BenchmarkSandboxStart is what the sandbox adds to an agent's start, beside the same start
// unconfined in the same run. command: the agent's command alone (true) against it under the
// launcher, with the machine's network and with the egress proxy (allow), thirty rounds taking
// turns. iteration: an agent's end to the next agent's start in a loop (as
// BenchmarkIterationRestart), unconfined and confined, one loop after the other.
func BenchmarkSandboxStart(b *testing.B) {
	if why := sandbox.Probe(); why != "" {
		b.Skipf("no sandbox here: %s", why)
	}
	b.Run("command", func(b *testing.B) {
		s := newBenchSwarm(b)
		launcher := []string{s.bin, sandbox.LaunchCommand, "--workdir", s.work, "--state", s.dir}
		runs := map[string][]string{
			"off":   {"true"},
			"open":  append(append([]string{}, launcher...), "--net", "open", "--", "true"),
			"allow": append(append([]string{}, launcher...), "--net", "allow=127.0.0.1:9", "--", "true"),
		}
		took := map[string][]time.Duration{}
		benchOnce(b, func() {
			for range 30 {
				for _, name := range []string{"off", "open", "allow"} {
					argv := runs[name]
					cmd := exec.Command(argv[0], argv[1:]...)
					cmd.Env, cmd.Dir = s.env, s.work
					start := time.Now()
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("%s: %v\n%s", name, err, out)
					}
					took[name] = append(took[name], time.Since(start))
				}
			}
		})
		for _, name := range []string{"off", "open", "allow"} {
			reportNamed(b, name, took[name])
		}
		b.ReportMetric(ms(medianOf(took["open"])-medianOf(took["off"])), "added-median-ms")
		b.ReportMetric(ms(medianOf(took["allow"])-medianOf(took["off"])), "added-allow-median-ms")
	})
	b.Run("iteration", func(b *testing.B) {
		s := newBenchSwarm(b)
		var off, on []time.Duration
		benchOnce(b, func() {
			off = restartGaps(b, s, "unconfined", "--no-sandbox")
			on = restartGaps(b, s, "confined", "--sandbox=required")
		})
		reportNamed(b, "off", off)
		reportNamed(b, "on", on)
		b.ReportMetric(ms(medianOf(on)-medianOf(off)), "added-median-ms")
	})
}

// reportNamed reports the median and the largest of ds under name.
func reportNamed(b *testing.B, name string, ds []time.Duration) {
	b.ReportMetric(ms(medianOf(ds)), name+"-median-ms")
	b.ReportMetric(ms(slices.Max(ds)), name+"-max-ms")
}

func medianOf(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
