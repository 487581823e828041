package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The benchmarks time the shipped binary, not the test binary that TestMain turns into a swarm
// command: what a user waits for includes the real program's start-up. It is built once and
// kept in memory, and each benchmark writes its own copy into its temporary directory, so no
// file outlives the benchmark that used it.
var benchBinary struct {
	once sync.Once
	data []byte
	err  error
}

func benchBuildSwarm() ([]byte, error) {
	benchBinary.once.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			benchBinary.err = fmt.Errorf("go env GOMOD: %v", err)
			return
		}
		gomod := strings.TrimSpace(string(out))
		if gomod == "" || gomod == os.DevNull {
			benchBinary.err = fmt.Errorf("not inside a module")
			return
		}
		dir, err := os.MkdirTemp("", "swarm-bench-build")
		if err != nil {
			benchBinary.err = err
			return
		}
		defer os.RemoveAll(dir)
		bin := filepath.Join(dir, "swarm")
		// Built as `make build` builds it.
		build := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, "github.com/swarm-dev/swarm/cmd/swarm")
		build.Dir = filepath.Dir(gomod)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			benchBinary.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		benchBinary.data, benchBinary.err = os.ReadFile(bin)
	})
	return benchBinary.data, benchBinary.err
}

var benchSerial int

// benchSwarm is one isolated swarm installation: its own binary copy, state directory and
// private tmux server.
type benchSwarm struct {
	b      *testing.B
	bin    string
	work   string
	dir    string // SWARM_DIR
	socket string
	env    []string
}

func newBenchSwarm(b *testing.B) *benchSwarm {
	b.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux is not installed")
	}
	data, err := benchBuildSwarm()
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	s := &benchSwarm{b: b, bin: filepath.Join(root, "swarm"), work: filepath.Join(root, "work")}
	if err := os.WriteFile(s.bin, data, 0o755); err != nil {
		b.Fatal(err)
	}
	for _, d := range []string{s.work, filepath.Join(root, "home"), filepath.Join(root, "tmux")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	benchSerial++
	s.socket = fmt.Sprintf("swarm-bench-%d-%d", os.Getpid(), benchSerial)
	stateDir := filepath.Join(root, "state")
	s.dir = stateDir
	// The socket lives under the temporary directory, so it goes away with it even if the
	// server leaves it behind.
	s.env = benchEnv(
		"SWARM_DIR="+stateDir,
		"SWARM_TMUX_SOCKET="+s.socket,
		"TMUX_TMPDIR="+filepath.Join(root, "tmux"),
		"HOME="+filepath.Join(root, "home"),
	)
	marker := "SWARM_DIR=" + stateDir
	// Registered after TempDir, so it runs first: nothing may still write into the directory
	// while it is removed.
	b.Cleanup(func() {
		// swarm's own kill first: it also stops ralph loops, whose detached monitors would
		// otherwise outlive the tmux server.
		stop := exec.Command(s.bin, "kill", "--all", "--grace", "1")
		stop.Env = s.env
		stop.Dir = s.work
		_ = stop.Run()
		kill := exec.Command("tmux", "-L", s.socket, "kill-server")
		kill.Env = s.env
		_ = kill.Run()
		if left := reapStragglers(marker); len(left) > 0 {
			b.Errorf("benchmark left processes running: %s", strings.Join(left, "; "))
		}
	})
	return s
}

// benchEnv is this process's environment without anything that points at the user's tmux,
// home or swarm, plus extra.
func benchEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "TMUX" || k == "TMUX_PANE" || k == "TMUX_TMPDIR" || k == "HOME" || strings.HasPrefix(k, "SWARM_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

// run executes one swarm command and returns how long it took; any failure ends the benchmark.
func (s *benchSwarm) run(args ...string) (time.Duration, []byte) {
	s.b.Helper()
	cmd := exec.Command(s.bin, args...)
	cmd.Env = s.env
	cmd.Dir = s.work
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		s.b.Fatalf("swarm %s: %v\n%s%s", strings.Join(args, " "), err, out.Bytes(), errb.Bytes())
	}
	return d, out.Bytes()
}

type benchWorker struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	PID    int    `json:"pid"`
}

func (s *benchSwarm) list() []benchWorker {
	s.b.Helper()
	_, out := s.run("ls", "--format", "json")
	var ws []benchWorker
	if err := json.Unmarshal(out, &ws); err != nil {
		s.b.Fatalf("ls --format json: %v\n%s", err, out)
	}
	return ws
}

func (s *benchSwarm) pid(name string) int {
	s.b.Helper()
	for _, w := range s.list() {
		if w.Name == name {
			return w.PID
		}
	}
	s.b.Fatalf("worker %s not listed", name)
	return 0
}

// reportMedian publishes the median rather than the mean: a single slow start (the tmux server
// coming up, a cold page cache) says nothing about the steady cost of a command.
func reportMedian(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	b.ReportMetric(float64(m)/float64(time.Millisecond), "median-ms")
}

// Target: median under 20 ms. ls is what scripts and status bars poll, so it has to stay cheap
// with many workers: one state read, one tmux query, a /proc lookup per worker.
func BenchmarkLsJSON100(b *testing.B) {
	s := newBenchSwarm(b)
	const n = 100
	for i := range n {
		s.run("spawn", "--name", fmt.Sprintf("w%d", i), "--", "sleep", "100000")
	}
	var ds []time.Duration
	var last []byte
	for b.Loop() {
		d, out := s.run("ls", "--format", "json")
		ds = append(ds, d)
		last = out
	}
	var ws []benchWorker
	if err := json.Unmarshal(last, &ws); err != nil {
		b.Fatal(err)
	}
	running := 0
	for _, w := range ws {
		if w.Status == "running" {
			running++
		}
	}
	if len(ws) != n || running != n {
		b.Fatalf("ls listed %d workers, %d running; want %d running", len(ws), running, n)
	}
	reportMedian(b, ds)
	s.run("kill", "--all", "--grace", "1")
}

// Target: median under 60 ms, from command start to the pane running and recorded.
func BenchmarkSpawnTmux(b *testing.B) {
	s := newBenchSwarm(b)
	var ds []time.Duration
	i := 0
	for b.Loop() {
		d, _ := s.run("spawn", "--name", fmt.Sprintf("b%d", i), "--tmux", "--", "sleep", "100000")
		ds = append(ds, d)
		i++
	}
	if ws := s.list(); len(ws) != i {
		b.Fatalf("%d workers listed after %d spawns", len(ws), i)
	}
	reportMedian(b, ds)
	s.run("kill", "--all", "--grace", "1")
}

// Every process of the worker ignores SIGTERM: the shell sets the trap before it starts its
// children, and an ignored signal stays ignored across fork and exec. Nothing ends on SIGTERM,
// so kill has to wait out the grace period, send SIGKILL to the whole group and confirm every
// member is gone. The median therefore sits a little above the grace; a kill that returns
// sooner would mean the SIGKILL path was never taken.
func BenchmarkKillProcessGroup(b *testing.B) {
	const grace = 200 * time.Millisecond
	s := newBenchSwarm(b)
	var ds []time.Duration
	i := 0
	for b.Loop() {
		b.StopTimer()
		name := fmt.Sprintf("k%d", i)
		i++
		s.run("spawn", "--name", name, "--", "sh", "-c", `trap "" TERM; sleep 100000 & sleep 100000 & wait`)
		pgid := s.pid(name)
		children := benchWaitTermIgnored(b, pgid, "sleep", 2)
		b.StartTimer()

		d, _ := s.run("kill", name, "--grace", strconv.FormatFloat(grace.Seconds(), 'f', -1, 64))

		b.StopTimer()
		ds = append(ds, d)
		if d < grace {
			b.Fatalf("kill took %v, less than the %v grace: the group did not survive SIGTERM", d, grace)
		}
		if left := groupMembers(pgid); len(left) > 0 {
			b.Fatalf("process group %d still has live members after kill: %v", pgid, left)
		}
		for _, pid := range children {
			if benchLive(pid) {
				b.Fatalf("child %d of process group %d survived kill", pid, pgid)
			}
		}
		b.StartTimer()
	}
	reportMedian(b, ds)
}

// benchWaitTermIgnored waits until process group pgid holds n processes named comm that ignore
// SIGTERM, and returns them. Checking the name waits out the moment between the shell's fork and
// the child's exec; checking the mask proves the disposition came through the exec.
func benchWaitTermIgnored(b *testing.B, pgid int, comm string, n int) []int {
	b.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var found []int
		for _, pid := range groupMembers(pgid) {
			name, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
			if err == nil && strings.TrimSpace(string(name)) == comm && benchIgnoresTerm(pid) {
				found = append(found, pid)
			}
		}
		if len(found) >= n {
			return found
		}
		if time.Now().After(deadline) {
			b.Fatalf("process group %d never had %d %s processes ignoring SIGTERM (found %v)", pgid, n, comm, found)
		}
		time.Sleep(time.Millisecond)
	}
}

// benchIgnoresTerm reads the ignored-signal mask (SigIgn in /proc/PID/status). A signal the
// process catches is not in it: only a process that ignores SIGTERM counts.
func benchIgnoresTerm(pid int) bool {
	const sigtermBit = 1 << (uint(syscall.SIGTERM) - 1)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if hex, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			return err == nil && mask&sigtermBit != 0
		}
	}
	return false
}

// benchLive reports whether pid is a process that has not ended (zombies count as ended).
func benchLive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] != 'Z' && stat[i+2] != 'X'
}

// groupMembers lists the non-zombie processes whose process group (field 5 of
// /proc/PID/stat) is pgid.
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// The command name may contain spaces and parentheses; the fields after it do not.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if pg, err := strconv.Atoi(f[2]); err == nil && pg == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// benchOnce runs measure a single time, however many iterations were asked for. It is for
// benchmarks whose figure comes from one long observation (a fixed wall-clock window, a whole
// ralph loop): repeating it would multiply the run time without making the figure any better.
// ns/op is suppressed, as the time of one observation divided by b.N means nothing.
func benchOnce(b *testing.B, measure func()) {
	b.Helper()
	done := false
	for b.Loop() {
		if !done {
			measure()
			done = true
		}
	}
	b.ReportMetric(0, "ns/op")
}

// benchLoopState is the part of a loop's state.json the benchmarks look at.
type benchLoopState struct {
	Status           string `json:"status"`
	Phase            string `json:"phase"`
	CurrentIteration int    `json:"current_iteration"`
	MonitorPID       int    `json:"monitor_pid"`
	ExitReason       string `json:"exit_reason"`
	Ended            string `json:"ended"`
}

func (s *benchSwarm) stateDir() string {
	for _, kv := range s.env {
		if v, ok := strings.CutPrefix(kv, "SWARM_DIR="); ok {
			return v
		}
	}
	s.b.Fatal("no SWARM_DIR in the benchmark environment")
	return ""
}

// waitLoop polls the loop state of worker name until ok accepts it. The file is replaced
// atomically, so a read never sees half a write; a missing file just means not yet.
func (s *benchSwarm) waitLoop(name string, timeout time.Duration, ok func(benchLoopState) bool) benchLoopState {
	s.b.Helper()
	path := filepath.Join(s.stateDir(), "ralph", name, "state.json")
	deadline := time.Now().Add(timeout)
	var st benchLoopState
	for {
		data, err := os.ReadFile(path)
		if err == nil {
			st = benchLoopState{}
			if err := json.Unmarshal(data, &st); err != nil {
				s.b.Fatalf("%s: %v", path, err)
			}
			if ok(st) {
				return st
			}
		}
		if time.Now().After(deadline) {
			s.b.Fatalf("loop %s: condition not reached after %v; last state %+v", name, timeout, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *benchSwarm) tmuxServerPID() int {
	s.b.Helper()
	cmd := exec.Command("tmux", "-L", s.socket, "display", "-p", "#{pid}")
	cmd.Env = s.env
	out, err := cmd.Output()
	if err != nil {
		s.b.Fatalf("tmux display #{pid}: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		s.b.Fatalf("tmux server pid %q: %v", out, err)
	}
	return pid
}

// benchCPU is one reading of a process's CPU counters from /proc/PID/stat, in clock ticks.
type benchCPU struct {
	self     uint64 // utime + stime (fields 14, 15)
	children uint64 // cutime + cstime (fields 16, 17): children it has waited for
	start    uint64 // starttime (field 22), to tell the process from a later one with its pid
	// onCPU is the time its threads have run, in nanoseconds (the first field of each
	// /proc/PID/task/TID/schedstat): what self counts in 10 ms ticks, to the nanosecond.
	onCPU uint64
}

func benchReadCPU(b *testing.B, pid int) benchCPU {
	b.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatalf("process %d: %v", pid, err)
	}
	// Fields after the command name, which may contain spaces: f[0] is field 3.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		b.Fatalf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		b.Fatalf("/proc/%d/stat: %d fields", pid, len(f))
	}
	n := func(field int) uint64 {
		v, err := strconv.ParseUint(f[field-3], 10, 64)
		if err != nil {
			b.Fatalf("/proc/%d/stat field %d: %v", pid, field, err)
		}
		return v
	}
	return benchCPU{self: n(14) + n(15), children: n(16) + n(17), start: n(22), onCPU: benchOnCPU(pid)}
}

// benchOnCPU is the time a process's threads have run so far, in nanoseconds; 0 where the
// kernel does not keep it (then only the ticks count).
func benchOnCPU(pid int) uint64 {
	stats, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum uint64
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // a thread that just ended
		}
		if f := strings.Fields(string(data)); len(f) > 0 {
			v, _ := strconv.ParseUint(f[0], 10, 64)
			sum += v
		}
	}
	return sum
}

// benchClockTicks is the unit of /proc/PID/stat's times. It is 100 on every Linux build in
// practice, but asking costs nothing.
func benchClockTicks() float64 {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err == nil {
		if v, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && v > 0 {
			return float64(v)
		}
	}
	return 100
}

// Target: median under 1000 ms from one iteration's agent exiting to the next one's starting.
// This is the dead time of a loop whose agent finishes quickly (a task already done, an agent
// that fails at once): the monitor has to notice the exit, record the iteration and start the
// agent again. The agent's shell stamps its start before anything else and the agent stamps
// its end just before exiting (an @sh line before @exit 0 in the prompt), both with nanosecond
// wall-clock times, as the iteration log has whole seconds only. A start is the shell starting,
// not the prompt being typed: waiting for the agent's input prompt is the agent's start-up, not
// the loop's.
func BenchmarkIterationRestart(b *testing.B) {
	const iterations = 9 // eight restarts
	s := newBenchSwarm(b)
	starts := filepath.Join(s.work, "starts.txt")
	ends := filepath.Join(s.work, "ends.txt")
	prompt := filepath.Join(s.work, "PROMPT.md")
	text := fmt.Sprintf("@sh date +%%s.%%N >> '%s'\n@exit 0\n", ends)
	if err := os.WriteFile(prompt, []byte(text), 0o600); err != nil {
		b.Fatal(err)
	}
	var st benchLoopState
	benchOnce(b, func() {
		// The paths go in as arguments, so no quoting depends on where the temporary directory is.
		s.run("spawn", "--name", "restart", "--ralph", "--prompt-file", prompt,
			"--max-iterations", strconv.Itoa(iterations), "--",
			"sh", "-c", `date +%s.%N >> "$0"; exec "$1" demo-agent`, starts, s.bin)
		st = s.waitLoop("restart", 120*time.Second, func(st benchLoopState) bool {
			return st.Status != "running"
		})
	})
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
	reportMedian(b, gaps)
	b.ReportMetric(float64(slices.Max(gaps))/float64(time.Millisecond), "max-ms")
	s.run("kill", "--all", "--grace", "1")
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
