package driver

import (
	"context"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

// Waiting: a loop sleeps between looks at its agent, and wakes early when the agent's process
// ends (where the operating system tells it) or the loop is aborted.

// ExitWatcher is a Procs that can tell when a process ends without being asked.
type ExitWatcher interface {
	// Exited returns a channel closed when pid has ended, and what releases the watch; the
	// channel is nil when pid cannot be watched so.
	Exited(pid int) (<-chan struct{}, func())
}

// wait sleeps for d, or less when the process watched by exited ends, something arrives on
// woken (the agent's pane printed), the loop's files change or it is aborted.
func (l *Loop) wait(d time.Duration, exited <-chan struct{}, woken <-chan struct{}) {
	if _, real := l.cfg.Clock.(RealClock); !real {
		// A test's clock moves only when slept on.
		l.cfg.Clock.Sleep(d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-exited:
	case <-woken:
	case <-l.files.changed():
		l.filesChanged = true
	case <-l.ctx().Done():
	}
}

// takeFilesChanged reports whether a wait since the last call ended because the loop's files
// changed.
func (l *Loop) takeFilesChanged() bool {
	changed := l.filesChanged
	l.filesChanged = false
	return changed
}

// ctx is the context the loop runs under; a Config without one runs until it ends by itself.
func (l *Loop) ctx() context.Context {
	if l.cfg.Context == nil {
		return context.Background()
	}
	return l.cfg.Context
}

// exitWatch watches the agent's process end where the operating system tells it; nil means
// the watch polls.
func (l *Loop) exitWatch(pid int) (<-chan struct{}, func()) {
	if w, ok := l.cfg.Procs.(ExitWatcher); ok {
		return w.Exited(pid)
	}
	return nil, func() {}
}

// notify leaves one wake-up in ch (capacity 1) for a wait that selects on it: wake-ups that
// come while one is pending are one.
func notify(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// waitForReset waits until the limit's reset (the loop is "waiting"); a resume, pause or
// stop meanwhile ends the wait at once.
func (l *Loop) waitForReset(st *ralph.State) {
	until := ralph.ParseTime(st.WaitingUntil)
	began := l.cfg.Clock.Now()
	defer func() {
		over := l.cfg.Clock.Now()
		l.rec.update(func(s *ralph.State) error { s.AddWait(ralph.WaitLimit, over.Sub(began)); return nil })
	}()
	for l.cfg.Clock.Now().Before(until) {
		if l.abortRequested() {
			l.abortNow(agent{dead: true})
			return
		}
		if l.statusNow() != ralph.StatusWaiting {
			return
		}
		// The status is read every second, or at the status poll when that is slower.
		l.wait(min(until.Sub(l.cfg.Clock.Now()), max(time.Second, l.statusPoll())), nil, nil)
	}
	_, _, err := l.cfg.Dir.Transition(l.cfg.Clock.Now(), func(cur *ralph.State) (ralph.Decision, error) {
		if cur.Status != ralph.StatusWaiting {
			return ralph.Decision{}, nil
		}
		return ralph.LimitOver(), nil
	})
	l.rec.recorded(err)
	if l.statusNow() == ralph.StatusRunning {
		l.rec.say("usage limit reset, resuming")
	}
}
