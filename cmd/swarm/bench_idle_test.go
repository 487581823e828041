package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// What loops cost while their agents sit idle, and how fast a loop reacts: the figures the
// supervision design is judged by. Every CPU and memory figure comes from /proc accounting.

// benchWindow is how long an idle measurement watches: 60 s, or SWARM_BENCH_WINDOW (a Go
// duration) for a quicker look.
func benchWindow(b *testing.B) time.Duration {
	return benchDuration(b, "SWARM_BENCH_WINDOW", time.Minute)
}

// benchDuration is the Go duration the environment variable name sets, def when it is unset.
func benchDuration(b *testing.B, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		b.Fatalf("%s=%q: not a duration", name, v)
	}
	return d
}

// benchProc is one of swarm's own processes: the Regent and its keeper, a loop's own monitor,
// an agent's start script or wrapper, a pane's output copier. Agents are not swarm's and are
// left out.
type benchProc struct {
	pid  int
	role string
}

// ownProcs finds this installation's own processes by their command line: its binary running
// one of the hidden commands, or the shell running one of its workers' start scripts; and the
// processes that copy a pane's output into its loop's pipe, by where they write.
func (s *benchSwarm) ownProcs() []benchProc {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []benchProc
	for _, d := range dirs {
		raw, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		pid, _ := strconv.Atoi(filepath.Base(d))
		role := s.roleOf(argv)
		if out, err := os.Readlink(filepath.Join(d, "fd", "1")); err == nil && strings.HasPrefix(out, s.dir) && strings.HasSuffix(out, "output.fifo") {
			role = "output copier"
		}
		if role != "" {
			out = append(out, benchProc{pid: pid, role: role})
		}
	}
	return out
}

// roleOf names what a process does for this installation, "" when it is none of its own.
func (s *benchSwarm) roleOf(argv []string) string {
	if len(argv) == 2 && argv[0] == "/bin/sh" && strings.HasPrefix(argv[1], s.dir) && strings.HasSuffix(argv[1], ".run.sh") {
		return "start script"
	}
	if argv[0] != s.bin {
		return ""
	}
	for _, a := range argv[1:] {
		switch a {
		case "__serve", "__keep", "__monitor", "__run":
			return a
		}
	}
	return ""
}

// benchRSS is a process's resident memory in bytes (VmRSS of /proc/PID/status): its pages
// shared with other processes (the shell and C library of fifty start scripts) counted in full
// for each of them.
func benchRSS(b *testing.B, pid int) int64 { return benchMemory(b, pid, "status", "VmRSS:") }

// benchPSS is a process's proportional share of memory in bytes (Pss of
// /proc/PID/smaps_rollup): each shared page divided among the processes sharing it, so a
// set's figures add up to the memory it really occupies.
func benchPSS(b *testing.B, pid int) int64 { return benchMemory(b, pid, "smaps_rollup", "Pss:") }

// benchMemory reads one "Key: N kB" line of a /proc/PID file, in bytes.
func benchMemory(b *testing.B, pid int, file, key string) int64 {
	b.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		b.Fatalf("process %d: %v", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte(key)); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"), 10, 64)
			if err != nil {
				b.Fatalf("/proc/%d/%s %s %q: %v", pid, file, key, v, err)
			}
			return kb * 1024
		}
	}
	b.Fatalf("/proc/%d/%s: no %s", pid, file, key)
	return 0
}

// startIdleLoops starts n loops whose demo agents print one line and then wait at their
// prompt for good, and returns once every loop watches its agent.
func (s *benchSwarm) startIdleLoops(n int) {
	prompt := filepath.Join(s.work, "IDLE.md")
	if err := os.WriteFile(prompt, []byte("@say idle\n"), 0o600); err != nil {
		s.b.Fatal(err)
	}
	for i := range n {
		s.run("spawn", "--name", fmt.Sprintf("idle%d", i), "--ralph", "--prompt-file", prompt, "--max-iterations", "1",
			"--inactivity-timeout", "100000", "--hang-timeout", "0", "--", s.bin, "demo-agent")
	}
	for i := range n {
		s.waitLoop(fmt.Sprintf("idle%d", i), 60*time.Second, func(st benchLoopState) bool {
			if st.Status != "running" {
				s.b.Fatalf("loop idle%d is %s (%s) before its agent got its prompt", i, st.Status, st.ExitReason)
			}
			return st.Phase == "working"
		})
	}
	// Each watched pane's output copier starts a moment after the watch: counted once there.
	deadline := time.Now().Add(10 * time.Second)
	for s.copiers() < n {
		if time.Now().After(deadline) {
			s.b.Fatalf("%d output copiers for %d loops", s.copiers(), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// copiers counts the panes' output copiers running.
func (s *benchSwarm) copiers() int {
	n := 0
	for _, p := range s.ownProcs() {
		if p.role == "output copier" {
			n++
		}
	}
	return n
}

// Targets (the supervision issue): one idle loop ≤ 0.013% of a core for swarm's processes
// and the tmux server together; fifty ≤ 1% in total and ≤ 100 MB resident for swarm's own
// processes. cpu-% counts swarm's processes (with the tmux clients they start and wait for)
// and the tmux server, which serves the idle panes; rss-MB is swarm's own processes only. The
// kernel counts CPU in clock ticks (10 ms): over 60 s a figure moves in steps of 0.017%.
func BenchmarkIdleLoops(b *testing.B) {
	for _, n := range []int{1, 50} {
		b.Run(fmt.Sprintf("loops=%d", n), func(b *testing.B) { benchIdleLoops(b, n) })
	}
}

func benchIdleLoops(b *testing.B, n int) {
	window := benchWindow(b)
	s := newBenchSwarm(b)
	s.startIdleLoops(n)
	procs, server := s.ownProcs(), s.tmuxServerPID()
	own := benchPIDs{server: server}
	for _, p := range procs {
		own.pids = append(own.pids, p.pid)
	}
	// The Python original, when SWARM_PEER names it: one idle loop beside the one of swarm's,
	// watched over the same window.
	var peer *benchPIDs
	if p := newBenchPeer(b); p != nil && n == 1 {
		monitor, server := p.startIdleLoop(s.bin, "demo-agent")
		peer = &benchPIDs{pids: []int{monitor}, server: server}
	}
	var cpuPct, tmuxPct, peerPct float64
	benchOnce(b, func() {
		before, peer0 := own.read(b), peer.read(b)
		begin := time.Now()
		time.Sleep(window)
		after, peer1 := own.read(b), peer.read(b)
		wall := time.Since(begin).Seconds()
		cpuPct, tmuxPct = after.since(b, before, wall)
		peerPct, _ = peer1.since(b, peer0, wall)
	})
	b.ReportMetric(cpuPct, "cpu-%")
	b.ReportMetric(tmuxPct, "tmux-cpu-%")
	rss, pss := own.rss(b), own.pss(b)
	b.ReportMetric(float64(rss)/1e6, "rss-MB")
	b.ReportMetric(float64(rss)/1e6/float64(n), "rss-MB/loop")
	b.ReportMetric(float64(pss)/1e6, "pss-MB")
	b.ReportMetric(float64(len(procs))/float64(n), "procs/loop")
	if peer != nil {
		b.ReportMetric(peerPct, "peer-cpu-%")
		b.ReportMetric(float64(peer.rss(b))/1e6, "peer-rss-MB")
	}
}

// benchPIDs are the processes one measurement adds up: a supervisor's own processes and the
// tmux server serving its panes.
type benchPIDs struct {
	pids   []int
	server int
}

// benchReading is one reading of a benchPIDs set.
type benchReading struct {
	procs  []benchCPU
	server benchCPU
}

func (p *benchPIDs) read(b *testing.B) *benchReading {
	if p == nil {
		return nil
	}
	r := &benchReading{server: benchReadCPU(b, p.server)}
	for _, pid := range p.pids {
		r.procs = append(r.procs, benchReadCPU(b, pid))
	}
	return r
}

// since is the share of a core the set used since an earlier reading, all of it and the tmux
// server's alone; a process replaced in between makes the window worthless.
func (r *benchReading) since(b *testing.B, before *benchReading, wall float64) (all, server float64) {
	if r == nil {
		return 0, 0
	}
	hz := benchClockTicks()
	if r.server.start != before.server.start {
		b.Fatal("the tmux server was replaced during the window")
	}
	server = ownCPUSeconds(r.server, before.server)
	secs := server
	for i := range r.procs {
		if r.procs[i].start != before.procs[i].start {
			b.Fatal("a supervising process was replaced during the window")
		}
		secs += ownCPUSeconds(r.procs[i], before.procs[i]) + float64(r.procs[i].children-before.procs[i].children)/hz
	}
	return secs / wall * 100, server / wall * 100
}

// ownCPUSeconds is the CPU time a process used itself between two readings: to the
// nanosecond where the kernel keeps it (a thread that ended in the window takes its time
// along: then the ticks count).
func ownCPUSeconds(now, then benchCPU) float64 {
	if then.onCPU > 0 && now.onCPU >= then.onCPU {
		return float64(now.onCPU-then.onCPU) / 1e9
	}
	return float64(now.self-then.self) / benchClockTicks()
}

// pss is the proportional memory of the set's own processes (not the tmux server's).
func (p *benchPIDs) pss(b *testing.B) int64 {
	var total int64
	for _, pid := range p.pids {
		total += benchPSS(b, pid)
	}
	return total
}

// rss is the resident memory of the set's own processes (not the tmux server's).
func (p *benchPIDs) rss(b *testing.B) int64 {
	var total int64
	for _, pid := range p.pids {
		total += benchRSS(b, pid)
	}
	return total
}

// Target (the supervision issue): median ≤ 250 ms from the agent printing the done marker to
// the agent ended. The agent stamps the time just before it prints the marker; the loop
// records its end (to the microsecond) when it has seen the marker and decided, and ends the
// agent right after: the figure is the reaction, the agent's own exit not included.
func BenchmarkDoneMarkerToEnd(b *testing.B) {
	const loops = 7
	s := newBenchSwarm(b)
	var gaps []time.Duration
	benchOnce(b, func() {
		for i := range loops {
			name := fmt.Sprintf("done%d", i)
			stamp := filepath.Join(s.work, name+".stamp")
			prompt := filepath.Join(s.work, name+".md")
			// The agent works a while first: the marker comes while the loop watches a working
			// agent, not in the moments after the prompt went in.
			text := fmt.Sprintf("@work 3\n@sh date +%%s.%%N > '%s'\n@say <promise>COMPLETE</promise>\n", stamp)
			if err := os.WriteFile(prompt, []byte(text), 0o600); err != nil {
				b.Fatal(err)
			}
			s.run("spawn", "--name", name, "--ralph", "--prompt-file", prompt, "--max-iterations", "1", "--", s.bin, "demo-agent")
			st := s.waitLoop(name, 60*time.Second, func(st benchLoopState) bool { return st.Status != "running" })
			if st.ExitReason != "done_pattern" && st.ExitReason != "complete" {
				b.Fatalf("loop %s ended as %+v, not by its marker", name, st)
			}
			marked := benchReadStamps(b, stamp)
			ended, err := time.Parse("2006-01-02T15:04:05.000000Z07:00", st.Ended)
			if err != nil || len(marked) != 1 {
				b.Fatalf("loop %s: end %q (%v), %d stamps", name, st.Ended, err, len(marked))
			}
			gaps = append(gaps, ended.Sub(marked[0]))
		}
	})
	reportMedian(b, gaps)
}

// Target (the supervision issue): fifty loops whose agents go quiet every 3 s, for five
// minutes (SWARM_BENCH_QUIET shortens it): every inactivity restart within 3 s + 0.5 s of the
// agent's last output, none missed or doubled. Each agent stamps the time as it starts and
// just before its last line; a restart's gap is the next start minus that stamp. late counts
// gaps over 3.5 s, early those under 3 s (a restart that did not wait).
func BenchmarkQuietRestarts(b *testing.B) {
	const loops, quiet = 50, 3 * time.Second
	run := benchDuration(b, "SWARM_BENCH_QUIET", 5*time.Minute)
	s := newBenchSwarm(b)
	stamps := filepath.Join(s.work, "stamps")
	if err := os.Mkdir(stamps, 0o700); err != nil {
		b.Fatal(err)
	}
	prompt := filepath.Join(s.work, "QUIET.md")
	// The demo agent stamps the times itself (--stamp, @stamp): a process per stamp would be
	// the benchmark's own load on the machine, two more per restart.
	text := fmt.Sprintf("@stamp %s/$SWARM_WORKER.out\n@say quiet now\n", stamps)
	if err := os.WriteFile(prompt, []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
	var gaps []time.Duration
	benchOnce(b, func() {
		for i := range loops {
			name := fmt.Sprintf("q%d", i)
			s.run("spawn", "--name", name, "--ralph", "--prompt-file", prompt, "--max-iterations", "10000",
				"--inactivity-timeout", "3", "--", s.bin, "demo-agent", "--stamp", filepath.Join(stamps, name+".start"))
		}
		time.Sleep(run)
		s.run("kill", "--all", "--grace", "1")
		for i := range loops {
			gaps = append(gaps, benchRestartGaps(b, stamps, fmt.Sprintf("q%d", i))...)
		}
	})
	if len(gaps) == 0 {
		b.Fatal("no restarts recorded")
	}
	late, early := 0, 0
	for _, g := range gaps {
		switch {
		case g > quiet+500*time.Millisecond:
			late++
		case g < quiet:
			early++
		}
	}
	reportMedian(b, gaps)
	b.ReportMetric(float64(slices.Max(gaps))/float64(time.Millisecond), "max-ms")
	b.ReportMetric(float64(len(gaps)), "restarts")
	b.ReportMetric(float64(late), "late")
	b.ReportMetric(float64(early), "early")
}

// benchRestartGaps pairs each iteration's last output with the next iteration's start.
func benchRestartGaps(b *testing.B, dir, name string) []time.Duration {
	starts := benchReadStamps(b, filepath.Join(dir, name+".start"))
	outs := benchReadStamps(b, filepath.Join(dir, name+".out"))
	var gaps []time.Duration
	for i := 0; i+1 < len(starts) && i < len(outs); i++ {
		gaps = append(gaps, starts[i+1].Sub(outs[i]))
	}
	return gaps
}
