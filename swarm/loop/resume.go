package loop

import (
	"errors"
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/regent"
)

// Resuming a loop is two steps: the loop's own transition under its lock (Resume), then
// making sure something drives it (WakeDriver), which may take a while when the loop's
// earlier monitor is on its way out.

// ErrKilled refuses to resume a loop that a kill stopped: its worker was ended on purpose,
// and a resume would start it again.
var ErrKilled = errors.New("stopped by swarm kill")

// Resumed is a loop as a resume left it.
type Resumed struct {
	// State is the loop's state after the resume, or as it was when the resume was refused.
	State *ralph.State
	// LimitOnly says only the iteration limit changed: the loop went on as it was.
	LimitOnly bool
	// wasOver: the loop had stopped or failed; needMonitor: nothing drives it.
	wasOver, needMonitor bool
}

// Resume resumes the named loop through the loop's own transition. Whether a monitor is alive is asked
// under the loop lock: a paused loop's monitor gives up its lock only while holding the loop
// lock, so the answer cannot be one that is about to change. ralph.ErrUnchanged and ErrKilled
// say there was nothing to resume, ralph.ErrFinished that the loop used its iterations.
func (l Loops) Resume(name string, req ralph.ResumeRequest) (Resumed, error) {
	ld := ralph.DirFor(l.m.Dir(), name)
	var r Resumed
	st, d, err := ld.Transition(time.Now(), func(s *ralph.State) (ralph.Decision, error) {
		if s.Status == ralph.StatusStopped && s.ExitReason == "killed" {
			return ralph.Decision{}, ErrKilled
		}
		r.wasOver = s.Status == ralph.StatusStopped || s.Status == ralph.StatusFailed
		req.MonitorAlive = ld.MonitorAlive()
		d, start, err := ralph.Resume(s, req)
		r.needMonitor = start
		return d, err
	})
	r.State, r.LimitOnly = st, d.Status == ""
	return r, err
}

// WakeDriver lets a resumed loop go on: a chain stopped at a step goes on from that step, and
// a loop that nothing drives gets a monitor.
func (l Loops) WakeDriver(name string, r Resumed) error {
	ld := ralph.DirFor(l.m.Dir(), name)
	if r.wasOver {
		if err := resumeChain(ld); err != nil {
			return err
		}
	}
	var err error
	switch {
	case r.needMonitor:
		err = l.StartMonitor(name)
	case r.wasOver:
		err = l.handOver(ld, name, r.State.CurrentIteration)
	}
	if err != nil {
		return fmt.Errorf("cannot start the loop monitor: %w", err)
	}
	return nil
}

// handOver makes sure a loop brought back from stopped or failed has a monitor. One that was
// alive at the resume had seen the loop end and was on its way out, unless it read the state
// again after the resume and drives on: wait until it either leaves (then start another) or
// moves the loop on. A keeper may start one at the same time; the monitor lock keeps one.
func (l Loops) handOver(ld ralph.Dir, name string, iteration int) error {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if !ld.MonitorAlive() {
			if regent.NeedsMonitor(ld) {
				return l.StartMonitor(name)
			}
			return nil
		}
		st, err := ld.Load()
		if err != nil || st.Status != ralph.StatusRunning || st.Phase != ralph.PhaseEnded || st.CurrentIteration != iteration {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// resumeChain lets a chain stopped at a step go on from that step.
func resumeChain(ld ralph.Dir) error {
	if cs, err := ld.LoadChain(); err == nil && cs != nil && cs.Status == ralph.ChainFailed {
		cs.Resumed()
		if err := ld.SaveChain(cs); err != nil {
			return fmt.Errorf("cannot write the chain's state: %w", err)
		}
	}
	return nil
}
