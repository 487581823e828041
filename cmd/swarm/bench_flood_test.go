package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Target (the reliability issue): an agent whose pane floods, at 1 MB a second and as fast
// as yes(1) prints, for five minutes each (SWARM_BENCH_FLOOD shortens it): the tmux server's
// and the Regent's memory flat, the Regent's CPU capped. The reference, from the same run, is
// the same flood in a plain tmux server of swarm's configuration with nothing watching it:
// what tmux itself costs. Memory is resident (VmRSS) at the start of the window, at its end
// and at its highest (read every 5 s); CPU is a share of one core over the window.
func BenchmarkFloodingPane(b *testing.B) {
	for _, c := range []struct{ name, rate string }{{"flood=1MBps", "1m"}, {"flood=yes", "yes"}} {
		b.Run(c.name, func(b *testing.B) { benchFlood(b, c.rate) })
	}
}

// floodWarmup is how long a flood runs before the window opens: the scrollback fills (50000
// lines, four seconds at 1 MB/s) and the loop has noticed the flood.
const floodWarmup = 20 * time.Second

func benchFloodWindow(b *testing.B) time.Duration {
	return benchDuration(b, "SWARM_BENCH_FLOOD", 5*time.Minute)
}

// floodFigures are one flood's readings over the window.
type floodFigures struct {
	tmux, regent memorySeries
	tmuxCPU      float64 // % of a core
	regentCPU    float64
}

// memorySeries is a process's resident memory over the window, in bytes.
type memorySeries struct{ start, end, high int64 }

func (m *memorySeries) add(v int64) {
	if m.start == 0 {
		m.start = v
	}
	m.end, m.high = v, max(m.high, v)
}

func benchFlood(b *testing.B, rate string) {
	window := benchFloodWindow(b)
	s := newBenchSwarm(b)
	var own, ref floodFigures
	benchOnce(b, func() {
		own = s.floodLoop(rate, window)
		ref = s.floodPlainTmux(rate, window)
	})
	mb := func(v int64) float64 { return float64(v) / 1e6 }
	b.ReportMetric(mb(own.tmux.start), "tmux-MB-start")
	b.ReportMetric(mb(own.tmux.end), "tmux-MB-end")
	b.ReportMetric(mb(own.tmux.high), "tmux-MB-high")
	b.ReportMetric(mb(ref.tmux.end), "ref-tmux-MB-end")
	b.ReportMetric(mb(ref.tmux.high), "ref-tmux-MB-high")
	b.ReportMetric(mb(own.regent.start), "regent-MB-start")
	b.ReportMetric(mb(own.regent.end), "regent-MB-end")
	b.ReportMetric(mb(own.regent.high), "regent-MB-high")
	b.ReportMetric(own.regentCPU, "regent-cpu-%")
	b.ReportMetric(own.tmuxCPU, "tmux-cpu-%")
	b.ReportMetric(ref.tmuxCPU, "ref-tmux-cpu-%")
}

// floodLoop runs a loop whose agent floods its pane, and reads the tmux server and the
// Regent over the window.
func (s *benchSwarm) floodLoop(rate string, window time.Duration) floodFigures {
	prompt := filepath.Join(s.work, "FLOOD.md")
	if err := os.WriteFile(prompt, []byte("@flood "+rate+"\n"), 0o600); err != nil {
		s.b.Fatal(err)
	}
	s.run("spawn", "--name", "flood", "--ralph", "--prompt-file", prompt, "--max-iterations", "1",
		"--inactivity-timeout", "100000", "--hang-timeout", "0", "--", s.bin, "demo-agent")
	s.waitLoop("flood", 60*time.Second, func(st benchLoopState) bool { return st.Phase == "working" })
	regent := 0
	for _, p := range s.ownProcs() {
		if p.role == "__serve" {
			regent = p.pid
		}
	}
	if regent == 0 {
		s.b.Fatal("no Regent running")
	}
	time.Sleep(floodWarmup)
	f := watchFlood(s.b, s.tmuxServerPID(), regent, window)
	s.run("kill", "flood", "--grace", "1")
	return f
}

// floodPlainTmux runs the same flood in a tmux server of swarm's configuration on a socket of
// its own, with nothing but the flood in it, and reads the server over the window.
func (s *benchSwarm) floodPlainTmux(rate string, window time.Duration) floodFigures {
	socket := s.socket + "-plain"
	tmux := func(args ...string) string {
		s.b.Helper()
		cmd := exec.Command("tmux", append([]string{"-L", socket, "-f", filepath.Join(s.dir, "tmux.conf")}, args...)...)
		cmd.Env = s.env
		out, err := cmd.CombinedOutput()
		if err != nil {
			s.b.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	tmux("new-session", "-d", "-x", "200", "-y", "50", s.bin, "demo-agent")
	defer tmux("kill-server")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(tmux("capture-pane", "-p"), "❯") {
		if time.Now().After(deadline) {
			s.b.Fatal("the plain tmux server's agent never showed its prompt")
		}
		time.Sleep(50 * time.Millisecond)
	}
	tmux("send-keys", "-l", "@flood "+rate)
	tmux("send-keys", "Enter")
	pid, err := strconv.Atoi(strings.TrimSpace(tmux("display", "-p", "#{pid}")))
	if err != nil {
		s.b.Fatal(err)
	}
	time.Sleep(floodWarmup)
	return watchFlood(s.b, pid, 0, window)
}

// watchFlood reads the tmux server (and the Regent, when there is one) every 5 s over the
// window.
func watchFlood(b *testing.B, server, regent int, window time.Duration) floodFigures {
	var f floodFigures
	read := func() {
		f.tmux.add(benchRSS(b, server))
		if regent != 0 {
			f.regent.add(benchRSS(b, regent))
		}
	}
	cpu := func() (benchCPU, benchCPU) {
		var r benchCPU
		if regent != 0 {
			r = benchReadCPU(b, regent)
		}
		return benchReadCPU(b, server), r
	}
	s0, r0 := cpu()
	begin := time.Now()
	read()
	for time.Since(begin) < window {
		time.Sleep(min(5*time.Second, window-time.Since(begin)))
		read()
	}
	s1, r1 := cpu()
	wall := time.Since(begin).Seconds()
	f.tmuxCPU = floodCPUShare(s0, s1, wall)
	if regent != 0 {
		f.regentCPU = floodCPUShare(r0, r1, wall)
	}
	return f
}

// floodCPUShare is the share of a core a process (with the children it waited for) used
// between two readings.
func floodCPUShare(before, after benchCPU, wall float64) float64 {
	if after.start != before.start {
		panic(fmt.Sprintf("process replaced during the window (start %d, then %d)", before.start, after.start))
	}
	return (ownCPUSeconds(after, before) + float64(after.children-before.children)/benchClockTicks()) / wall * 100
}
