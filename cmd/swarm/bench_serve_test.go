package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
)

// What swarm serve costs a fleet watched from phones and scripts: 100 workers, 50 clients on
// its event stream, 10 events a second appended to the log as the Regent appends them. The
// figures: the server's CPU (from /proc, its threads' time on CPU) and PSS, each event's
// latency from its append to its arrival at every subscriber (p50, p99), a fleet read
// (GET /api/v1/workers) meanwhile, and the server's CPU over a minute with the 50 still
// connected and nothing happening (SWARM_BENCH_WINDOW shortens it). The load's own window is
// SWARM_BENCH_SERVE_LOAD (20 s).
func BenchmarkServe(b *testing.B) {
	const workers, subscribers, perSecond = 100, 50, 10
	s := newBenchSwarm(b)
	for i := range workers {
		s.run("spawn", "--name", fmt.Sprintf("w%d", i), "--", "sleep", "100000")
	}
	srv := startBenchServe(b, s)
	subs := newBenchSubscribers(b, srv, subscribers)
	load, idle := benchDuration(b, "SWARM_BENCH_SERVE_LOAD", 20*time.Second), benchWindow(b)
	for b.Loop() {
		before := benchReadCPU(b, srv.pid)
		start := time.Now()
		sent, fleet := appendEvents(b, s.dir, perSecond, load, srv)
		active := benchCPUShare(before, benchReadCPU(b, srv.pid), time.Since(start))
		pss := benchPSS(b, srv.pid)
		lat := subs.wait(b, sent*subscribers)
		before, start = benchReadCPU(b, srv.pid), time.Now()
		time.Sleep(idle) // the measurement is of a window in which nothing happens
		idleCPU := time.Duration(benchReadCPU(b, srv.pid).onCPU - before.onCPU)
		b.ReportMetric(active*100, "cpu-%-loaded")
		b.ReportMetric(float64(pss)/(1<<20), "pss-MiB")
		b.ReportMetric(ms(benchQuantile(lat, 0.50)), "event-p50-ms")
		b.ReportMetric(ms(benchQuantile(lat, 0.99)), "event-p99-ms")
		b.ReportMetric(ms(benchQuantile(fleet, 0.50)), "fleet-read-p50-ms")
		b.ReportMetric(float64(idleCPU)/float64(time.Millisecond)*float64(time.Minute)/float64(time.Since(start)), "idle-cpu-ms/min")
		b.Logf("%d workers, %d subscribers, %d events/s for %s: server CPU %.1f%%, PSS %.1f MiB; event latency p50 %.1f ms, p99 %.1f ms (%d arrivals); GET /api/v1/workers p50 %.1f ms; idle with %d connected: %s CPU in %s",
			workers, subscribers, perSecond, load, active*100, float64(pss)/(1<<20), ms(benchQuantile(lat, 0.5)),
			ms(benchQuantile(lat, 0.99)), len(lat), ms(benchQuantile(fleet, 0.5)), subscribers, idleCPU.Round(time.Millisecond), idle)
	}
	subs.stop()
	srv.stop(b)
}

// benchCPUShare is the share of one CPU the process used between two readings wall apart.
func benchCPUShare(before, after benchCPU, wall time.Duration) float64 {
	return float64(after.onCPU-before.onCPU) / float64(wall)
}

// benchQuantile is the q-quantile of ds (0 for none).
func benchQuantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// benchServer is a running swarm serve.
type benchServer struct {
	cmd   *exec.Cmd
	pid   int
	base  string
	token string
}

func startBenchServe(b *testing.B, s *benchSwarm) *benchServer {
	b.Helper()
	cmd := exec.Command(s.bin, "serve", "--listen", "127.0.0.1:0")
	cmd.Env, cmd.Dir = s.env, s.work
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		b.Fatalf("swarm serve said nothing: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	link := regexp.MustCompile(`(http://[^/\s]+)/login\?token=([0-9a-f]+)`).FindStringSubmatch(line)
	if link == nil {
		_ = cmd.Process.Kill()
		b.Fatalf("no login link in %q", line)
	}
	return &benchServer{cmd: cmd, pid: cmd.Process.Pid, base: link[1], token: link[2]}
}

func (srv *benchServer) stop(b *testing.B) {
	_ = srv.cmd.Process.Signal(os.Interrupt)
	if err := srv.cmd.Wait(); err != nil {
		b.Errorf("swarm serve ended with %v", err)
	}
}

func (srv *benchServer) get(ctx context.Context, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", srv.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+srv.token)
	return http.DefaultClient.Do(req)
}

// appendEvents appends perSecond events a second for d, each for one of the workers in turn,
// and reads the fleet once a second meanwhile; it returns how many it appended and how long
// the reads took.
func appendEvents(b *testing.B, root string, perSecond int, d time.Duration, srv *benchServer) (int, []time.Duration) {
	b.Helper()
	log := eventlog.Log{Root: root}
	tick := time.NewTicker(time.Second / time.Duration(perSecond))
	defer tick.Stop()
	var reads []time.Duration
	i := 0
	for end := time.Now().Add(d); time.Now().Before(end); i++ {
		<-tick.C
		if _, err := log.Append(eventlog.Event{Kind: eventlog.IterationStarted, Worker: fmt.Sprintf("w%d", i%100), Iteration: i}); err != nil {
			b.Fatal(err)
		}
		if i%perSecond == 0 {
			start := time.Now()
			resp, err := srv.get(context.Background(), "/api/v1/workers")
			if err != nil || resp.StatusCode != 200 {
				b.Fatalf("GET /api/v1/workers: %v %v", err, resp)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			reads = append(reads, time.Since(start))
		}
	}
	return i, reads
}

// benchSubscribers are clients on the event stream, each noting how long every event took
// from its append (its time) to its arrival.
type benchSubscribers struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	lat    []time.Duration
	failed error
}

func newBenchSubscribers(b *testing.B, srv *benchServer, n int) *benchSubscribers {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	subs := &benchSubscribers{cancel: cancel}
	for range n {
		resp, err := srv.get(ctx, "/api/v1/events/stream")
		if err != nil || resp.StatusCode != 200 {
			cancel()
			b.Fatalf("event stream: %v %v", err, resp)
		}
		subs.wg.Add(1)
		go subs.read(resp.Body)
	}
	return subs
}

func (subs *benchSubscribers) read(body io.ReadCloser) {
	defer subs.wg.Done()
	defer body.Close()
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e eventlog.Event
		err := json.Unmarshal([]byte(data), &e)
		subs.mu.Lock()
		if err != nil {
			subs.failed = err
		} else {
			subs.lat = append(subs.lat, time.Since(e.Time))
		}
		subs.mu.Unlock()
	}
}

// wait waits for the n arrivals (every event at every subscriber), at most 10 s: one missing
// is a stream that lost it.
func (subs *benchSubscribers) wait(b *testing.B, n int) []time.Duration {
	b.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		subs.mu.Lock()
		got, failed := len(subs.lat), subs.failed
		subs.mu.Unlock()
		if failed != nil {
			b.Fatalf("event stream: %v", failed)
		}
		if got >= n {
			subs.mu.Lock()
			defer subs.mu.Unlock()
			return slices.Clone(subs.lat)
		}
		if time.Now().After(deadline) {
			b.Fatalf("the subscribers got %d of %d events", got, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (subs *benchSubscribers) stop() {
	subs.cancel()
	subs.wg.Wait()
}
