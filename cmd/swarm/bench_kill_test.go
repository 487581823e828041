package main

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Target: 100 plain workers ended by one `kill --all` within about a second, not one after the
// other. Each worker is a detached `sleep` that ends on SIGTERM, so what is timed is kill's own
// work: finding the workers, signalling every process group, waiting for them all, recording
// them stopped. The workers are spawned (four at a time) and cleaned away between rounds,
// outside the timing.
func BenchmarkKillAll(b *testing.B) {
	for _, n := range []int{3, 100} {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			s := newBenchSwarm(b)
			var ds []time.Duration
			round := 0
			for b.Loop() {
				b.StopTimer()
				round++
				s.spawnSleepers(fmt.Sprintf("r%d-", round), n)
				ws := s.list()
				b.StartTimer()

				d, _ := s.run("kill", "--all", "--grace", "5")

				b.StopTimer()
				ds = append(ds, d)
				for _, w := range ws {
					if benchLive(w.PID) {
						b.Fatalf("%s (pid %d) still runs after kill --all", w.Name, w.PID)
					}
				}
				if left := s.list(); len(left) != n || countStatus(left, "stopped") != n {
					b.Fatalf("after kill --all: %+v", left)
				}
				s.run("clean", "--all")
				b.StartTimer()
			}
			reportMedian(b, ds)
		})
	}
}

// spawnSleepers starts n plain workers named prefix0, prefix1, ..., four spawns at a time.
func (s *benchSwarm) spawnSleepers(prefix string, n int) {
	s.b.Helper()
	names := make(chan string, n)
	for i := range n {
		names <- fmt.Sprintf("%s%d", prefix, i)
	}
	close(names)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				cmd := exec.Command(s.bin, "spawn", "--name", name, "--", "sleep", "100000")
				cmd.Env, cmd.Dir = s.env, s.work
				if out, err := cmd.CombinedOutput(); err != nil {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("spawn %s: %v: %s", name, err, out))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		s.b.Fatal(strings.Join(failures, "\n"))
	}
}

func countStatus(ws []benchWorker, status string) int {
	n := 0
	for _, w := range ws {
		if w.Status == status {
			n++
		}
	}
	return n
}
