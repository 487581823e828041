package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

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
