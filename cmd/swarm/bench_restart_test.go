package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Target: median under 1000 ms from one iteration's agent exiting to the next one's starting.
// This is the dead time of a loop whose agent finishes quickly (a task already done, an agent
// that fails at once): the monitor has to notice the exit, record the iteration and start the
// agent again. The agent's shell stamps its start before anything else and the agent stamps
// its end just before exiting (an @sh line before @exit 0 in the prompt), both with nanosecond
// wall-clock times, as the iteration log has whole seconds only. A start is the shell starting,
// not the prompt being typed: waiting for the agent's input prompt is the agent's start-up, not
// the loop's.
func BenchmarkIterationRestart(b *testing.B) {
	s := newBenchSwarm(b)
	var gaps []time.Duration
	benchOnce(b, func() { gaps = restartGaps(b, s, "restart") })
	reportMedian(b, gaps)
	b.ReportMetric(float64(slices.Max(gaps))/float64(time.Millisecond), "max-ms")
}

// restartGaps runs a loop of nine iterations whose agent ends at once, started with the given
// spawn flags, and returns the eight gaps from an agent's end to the next agent's start.
func restartGaps(b *testing.B, s *benchSwarm, name string, flags ...string) []time.Duration {
	const iterations = 9 // eight restarts
	starts := filepath.Join(s.work, name+"-starts.txt")
	ends := filepath.Join(s.work, name+"-ends.txt")
	prompt := filepath.Join(s.work, name+"-PROMPT.md")
	text := fmt.Sprintf("@sh date +%%s.%%N >> '%s'\n@exit 0\n", ends)
	if err := os.WriteFile(prompt, []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
	// The paths go in as arguments, so no quoting depends on where the temporary directory is.
	args := append([]string{"spawn", "--name", name, "--ralph", "--prompt-file", prompt,
		"--max-iterations", strconv.Itoa(iterations)}, flags...)
	s.run(append(args, "--", "sh", "-c", `date +%s.%N >> "$0"; exec "$1" demo-agent`, starts, s.bin)...)
	st := s.waitLoop(name, 120*time.Second, func(st benchLoopState) bool { return st.Status != "running" })
	if st.Status != "stopped" || st.ExitReason != "max_iterations" || st.CurrentIteration != iterations {
		b.Fatalf("loop ended as %+v; want stopped after %d iterations", st, iterations)
	}
	begun, ended := benchReadStamps(b, starts), benchReadStamps(b, ends)
	if len(begun) != iterations || len(ended) != iterations {
		b.Fatalf("%d starts and %d ends recorded; want %d of each", len(begun), len(ended), iterations)
	}
	var gaps []time.Duration
	for i := range iterations {
		if ended[i].Before(begun[i]) || (i+1 < iterations && begun[i+1].Before(ended[i])) {
			b.Fatalf("iteration %d: start %v, end %v, next start out of order", i+1, begun[i], ended[i])
		}
		if i+1 < iterations {
			gaps = append(gaps, begun[i+1].Sub(ended[i]))
		}
	}
	s.run("kill", name, "--grace", "1")
	return gaps
}

// benchReadStamps reads one `date +%s.%N` time per line, kept exact to the nanosecond (a
// float64 of the epoch seconds would round it).
func benchReadStamps(b *testing.B, path string) []time.Time {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var out []time.Time
	for _, line := range strings.Fields(string(data)) {
		sec, frac, ok := strings.Cut(line, ".")
		secs, err1 := strconv.ParseInt(sec, 10, 64)
		nsec, err2 := strconv.ParseInt(frac, 10, 64)
		if !ok || len(frac) != 9 || err1 != nil || err2 != nil {
			b.Fatalf("%s: bad time %q", path, line)
		}
		out = append(out, time.Unix(secs, nsec))
	}
	return out
}
