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
		build := exec.Command("go", "build", "-o", bin, "github.com/swarm-dev/swarm/cmd/swarm")
		build.Dir = filepath.Dir(gomod)
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
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "TMUX" || k == "TMUX_PANE" || k == "TMUX_TMPDIR" || k == "HOME" || strings.HasPrefix(k, "SWARM_") {
			continue
		}
		s.env = append(s.env, kv)
	}
	// The socket lives under the temporary directory, so it goes away with it even if the
	// server leaves it behind.
	s.env = append(s.env,
		"SWARM_DIR="+stateDir,
		"SWARM_TMUX_SOCKET="+s.socket,
		"TMUX_TMPDIR="+filepath.Join(root, "tmux"),
		"HOME="+filepath.Join(root, "home"),
	)
	marker := "SWARM_DIR=" + stateDir
	// Registered after TempDir, so it runs first: nothing may still write into the directory
	// while it is removed.
	b.Cleanup(func() {
		kill := exec.Command("tmux", "-L", s.socket, "kill-server")
		kill.Env = s.env
		_ = kill.Run()
		if left := benchReap(marker); len(left) > 0 {
			b.Errorf("benchmark left processes running: %s", strings.Join(left, "; "))
		}
	})
	return s
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

// The worker's shell ignores SIGTERM and has children of its own, so signalling the leader is
// not enough: kill must reach the whole group and confirm every member is gone. The shell
// exits once SIGTERM has taken its children, so the median should sit well below the grace.
func BenchmarkKillProcessGroup(b *testing.B) {
	s := newBenchSwarm(b)
	var ds []time.Duration
	i := 0
	for b.Loop() {
		b.StopTimer()
		name := fmt.Sprintf("k%d", i)
		i++
		s.run("spawn", "--name", name, "--", "sh", "-c", `sleep 100000 & sleep 100000 & trap "" TERM; wait`)
		pgid := s.pid(name)
		benchWaitIgnoresTerm(b, pgid)
		b.StartTimer()

		d, _ := s.run("kill", name, "--grace", "0.2")

		b.StopTimer()
		ds = append(ds, d)
		if left := benchGroupMembers(pgid); len(left) > 0 {
			b.Fatalf("process group %d still has live members after kill: %v", pgid, left)
		}
		b.StartTimer()
	}
	reportMedian(b, ds)
}

// benchWaitIgnoresTerm waits until the worker's shell has set its trap, which it does only
// after starting both children: a kill sent earlier would hit a half-built group and take the
// path where the shell dies of SIGTERM itself.
func benchWaitIgnoresTerm(b *testing.B, pgid int) {
	b.Helper()
	const sigtermBit = 1 << (uint(syscall.SIGTERM) - 1)
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, pid := range benchGroupMembers(pgid) {
			status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(status), "\n") {
				hex, ok := strings.CutPrefix(line, "SigIgn:")
				if !ok {
					continue
				}
				mask, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
				if err == nil && mask&sigtermBit != 0 {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("worker in process group %d never started ignoring SIGTERM", pgid)
		}
		time.Sleep(time.Millisecond)
	}
}

// benchGroupMembers lists the non-zombie processes whose process group (field 5 of
// /proc/PID/stat) is pgid.
func benchGroupMembers(pgid int) []int {
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

// benchReap waits briefly for every process whose environment carries marker to end, then
// kills and describes the ones that did not. Workers inherit the state directory in their
// environment, so this finds whatever a benchmark started, however it was detached.
func benchReap(marker string) []string {
	deadline := time.Now().Add(3 * time.Second)
	for {
		pids := benchProcsWithEnv(marker)
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			var desc []string
			for _, pid := range pids {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				desc = append(desc, fmt.Sprintf("%d %s", pid, strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))))
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			return desc
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func benchProcsWithEnv(marker string) []int {
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' || stat[i+2] == 'X' {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err == nil && slices.Contains(strings.Split(string(env), "\x00"), marker) {
			out = append(out, pid)
		}
	}
	return out
}
