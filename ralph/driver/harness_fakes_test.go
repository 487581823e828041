package driver

import (
	"bytes"
	"runtime"
	"sync"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// fakeClock advances only when the loop sleeps, and runs timers (the fake agent's scripted
// actions) when their time comes.
type fakeClock struct {
	mu      sync.Mutex
	start   time.Time
	now     time.Time
	sleeps  []sleepRec
	timers  []clockTimer
	seq     int
	halted  bool
	limit   time.Duration
	runaway chan struct{}

	// tag names what the loop is doing when it sleeps (its stored phase); set before Run.
	tag func() string
	// onSleep runs after every sleep and its timers, with the tag of that sleep.
	onSleep func(tag string)
}

type sleepRec struct {
	d   time.Duration
	tag string
}

type clockTimer struct {
	at  time.Time
	seq int
	fn  func()
}

func newFakeClock() *fakeClock {
	t0 := time.Date(2024, 1, 15, 10, 30, 0, 0, time.Local)
	return &fakeClock{start: t0, now: t0, limit: 24 * time.Hour, runaway: make(chan struct{})}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(d time.Duration) {
	tag := ""
	if c.tag != nil {
		tag = c.tag()
	}
	c.mu.Lock()
	if c.halted {
		c.mu.Unlock()
		// The test has given up on this loop: end its goroutine instead of letting it spin.
		runtime.Goexit()
	}
	c.now = c.now.Add(d)
	c.sleeps = append(c.sleeps, sleepRec{d, tag})
	if c.now.Sub(c.start) > c.limit {
		c.halted = true
		close(c.runaway)
		c.mu.Unlock()
		runtime.Goexit()
	}
	c.mu.Unlock()
	c.fire()
	if c.onSleep != nil {
		c.onSleep(tag)
	}
}

// fire runs the due timers in time order, without the clock locked (they act on the fake
// tmux, whose hooks schedule more timers).
func (c *fakeClock) fire() {
	for {
		c.mu.Lock()
		idx := -1
		for i, t := range c.timers {
			if t.at.After(c.now) {
				continue
			}
			if idx < 0 || t.at.Before(c.timers[idx].at) || t.at.Equal(c.timers[idx].at) && t.seq < c.timers[idx].seq {
				idx = i
			}
		}
		if idx < 0 {
			c.mu.Unlock()
			return
		}
		t := c.timers[idx]
		c.timers = append(c.timers[:idx], c.timers[idx+1:]...)
		c.mu.Unlock()
		t.fn()
	}
}

// After runs fn once the clock has reached now+d.
func (c *fakeClock) After(d time.Duration, fn func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	c.timers = append(c.timers, clockTimer{at: c.now.Add(d), seq: c.seq, fn: fn})
}

func (c *fakeClock) halt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.halted = true
}

// long returns the sleeps over half a second, in order.
func (c *fakeClock) long() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []time.Duration
	for _, s := range c.sleeps {
		if s.d > 500*time.Millisecond {
			out = append(out, s.d)
		}
	}
	return out
}

// total is the time slept so far.
func (c *fakeClock) total() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var sum time.Duration
	for _, s := range c.sleeps {
		sum += s.d
	}
	return sum
}

// waits sums each run of consecutive sleeps made with the given tag: one entry per wait,
// however the loop chunked it.
func (c *fakeClock) waits(tag ralph.Phase) []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []time.Duration
	in := false
	for _, s := range c.sleeps {
		if s.tag != tag.String() {
			in = false
			continue
		}
		if !in {
			out = append(out, 0)
			in = true
		}
		out[len(out)-1] += s.d
	}
	return out
}

// fakeProcs is the process table behind the fake panes: a pane's program is its PID.
type fakeProcs struct {
	mu    sync.Mutex
	tmux  *tmuxtest.Fake
	clock *fakeClock
	kills []killRec
}

type killRec struct {
	pid   int
	grace time.Duration
	alive bool // whether the group still ran when it was killed
	at    time.Time
}

func (p *fakeProcs) Alive(pid int) bool { return p.tmux.Alive(pid) }

// KillTagged finds nothing: the fake agents never leave their pane.
func (p *fakeProcs) KillTagged(string, int, time.Duration) int { return 0 }

// Mark stands for every process.
func (p *fakeProcs) Mark() int { return 0 }

// KillGroup ends the pane program like SIGTERM does (128+15).
func (p *fakeProcs) KillGroup(pgid int, grace time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	alive := p.tmux.KillPID(pgid, 143)
	p.kills = append(p.kills, killRec{pid: pgid, grace: grace, alive: alive, at: p.clock.Now()})
}

// killsOf counts the kills of pid's group, live or not.
func (p *fakeProcs) killsOf(pid int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, k := range p.kills {
		if k.pid == pid {
			n++
		}
	}
	return n
}

// liveKills are the kills that ended a running agent.
func (p *fakeProcs) liveKills() []killRec {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []killRec
	for _, k := range p.kills {
		if k.alive {
			out = append(out, k)
		}
	}
	return out
}

// outBuffer is the loop's Out; it is read for diagnostics while a stuck loop may still write.
type outBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *outBuffer) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *outBuffer) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}
