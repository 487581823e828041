package swarm

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/words"
)

// A foreground loop on a terminal keeps one progress line at the bottom, updated in place:
// [Agent: claude] Iteration 3/20 | 2m 15s | $0.0342
// The loop's own lines scroll above it.

// progressLine is an io.Writer for the loop's lines that redraws the progress line under
// them, and a ticker that refreshes it every second.
type progressLine struct {
	mu   sync.Mutex
	out  io.Writer
	ld   ralph.Dir
	line string
	stop chan struct{}
	done chan struct{}
}

// newProgressLine starts the progress line when out is a terminal; otherwise it returns nil
// and the loop's lines are printed as they are.
func newProgressLine(out io.Writer, ld ralph.Dir) *progressLine {
	if !writesToTerminal(out) {
		return nil
	}
	p := &progressLine{out: out, ld: ld, stop: make(chan struct{}), done: make(chan struct{})}
	go p.tick()
	return p
}

func (p *progressLine) tick() {
	defer close(p.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		p.refresh()
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
	}
}

// refresh redraws the line from the loop's state.
func (p *progressLine) refresh() {
	st, err := p.ld.Load()
	if err != nil {
		return
	}
	line := progressText(st, p.ld.CostSoFar(), time.Now())
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line = line
	fmt.Fprint(p.out, "\r\x1b[K"+line)
}

// progressText is the progress line for a loop's state.
func progressText(st *ralph.State, cost *float64, now time.Time) string {
	agent := st.Agent
	if agent == "" {
		agent = st.WorkerName
	}
	s := fmt.Sprintf("[Agent: %s] Iteration %d/%d | %s", agent, st.CurrentIteration, st.MaxIterations,
		words.Duration(st.RunningTime(now)))
	if cost != nil {
		s += fmt.Sprintf(" | $%.4f", *cost)
	}
	if st.Status != ralph.StatusRunning {
		s += " | " + st.Status.String()
	}
	return s
}

// Write prints the loop's lines above the progress line.
func (p *progressLine) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := fmt.Fprint(p.out, "\r\x1b[K"); err != nil {
		return 0, err
	}
	n, err := p.out.Write(b)
	if err == nil && p.line != "" {
		fmt.Fprint(p.out, p.line)
	}
	return n, err
}

// close stops the ticker and clears the line.
func (p *progressLine) close() {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprint(p.out, "\r\x1b[K")
	p.line = ""
}
