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
	return s.runIn(s.work, args...)
}

// runIn is run in the directory dir.
func (s *benchSwarm) runIn(dir string, args ...string) (time.Duration, []byte) {
	s.b.Helper()
	cmd := exec.Command(s.bin, args...)
	cmd.Env = s.env
	cmd.Dir = dir
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
