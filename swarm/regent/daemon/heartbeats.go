package daemon

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/heartbeat"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// The Regent's second duty: it types every active heartbeat's message into its worker when
// it is due, in a goroutine of its own (swarm/heartbeat decides what is due; this acts on it),
// and stays while any heartbeat is active (see mayLeave). One long-lived process per state
// directory, under one keeper, serves both loops and heartbeats.
//
// The goroutine holds the heartbeat store's runner lock while it beats, as the heartbeat
// runner of an older swarm did: while such a runner still serves the heartbeats, the Regent
// waits for it to go instead of beating them a second time.

// maxSleep bounds a wait, so a worker that ended is noticed, and a clock that jumped (a
// suspended laptop) is caught up with, within a minute.
const maxSleep = time.Minute

// runnerLockRetry is how often the Regent looks whether an older runner has let the
// heartbeats go.
const runnerLockRetry = 2 * time.Second

// beat sends the heartbeats until ctx ends, then closes done: it sleeps until the next beat
// is due, or until woken (a command changed a heartbeat).
func (r *daemon) beat(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	s := heartbeat.StoreFor(r.m.Dir())
	var lock *state.Lock
	letGo := func() {
		if lock != nil {
			lock.Unlock()
			lock = nil
		}
	}
	defer letGo()
	for {
		var next time.Time
		if s.AnyActive() {
			if lock != nil || r.takeRunnerLock(s, &lock) {
				next = beatDue(r.m, s, time.Now(), r.beatRecorded)
			} else {
				next = time.Now().Add(runnerLockRetry)
			}
		}
		if next.IsZero() {
			// Nothing to beat (any more): the main loop decides whether the Regent may leave,
			// and a Regent after this one may beat as soon as a heartbeat is active again.
			letGo()
			r.wakeUp()
		}
		if !r.sleepUntil(ctx, next) {
			return
		}
	}
}

// takeRunnerLock takes the store's runner lock into *lock, and reports whether it did; a
// process that holds it is said once.
func (r *daemon) takeRunnerLock(s heartbeat.Store, lock **state.Lock) bool {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return false
	}
	l, ok, err := state.TryLock(s.RunnerLock())
	if err != nil || !ok {
		if !r.olderRunner {
			r.olderRunner = true
			r.say("another process sends the heartbeats (a heartbeat runner of an older swarm, or a Regent leaving); beating them once it lets go")
		}
		return false
	}
	*lock = l
	return true
}

// sleepUntil waits until next (at most maxSleep; a zero next is no beat due), a wake-up or
// the end of ctx, and reports whether the beating goes on.
func (r *daemon) sleepUntil(ctx context.Context, next time.Time) bool {
	d := maxSleep
	if !next.IsZero() {
		d = min(max(time.Until(next), 0), maxSleep)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.beatWake:
	case <-ctx.Done():
		return false
	}
	return true
}

// beatDue sends every beat that is due and records what happened, telling recorded how each
// record went (nil: it is not told); it returns when the next one is due (zero when no
// heartbeat is active).
func beatDue(m *worker.Machine, s heartbeat.Store, now time.Time, recorded func(worker string, err error)) time.Time {
	hs := s.List(func(err error) { m.Warnf("%v", err) })
	workers, _, err := m.LoadAll()
	if err != nil {
		return now.Add(maxSleep)
	}
	byName := map[string]*state.Worker{}
	for _, w := range workers {
		byName[w.Name] = w
	}
	var next time.Time
	for _, hb := range hs {
		w := byName[hb.WorkerName]
		running := w != nil && w.Tmux != nil && w.Status == state.StatusRunning
		step := heartbeat.Decide(hb, running, now)
		if step.Send && m.Type(w, hb.Message, true, true) != nil {
			step.Send = false // not sent: tried again at the next pass
		}
		if step.Send || step.Status != hb.Status {
			err := recordStep(s, hb.WorkerName, step, now)
			if recorded != nil {
				recorded(hb.WorkerName, err)
			}
		}
		if !step.Wake.IsZero() && (next.IsZero() || step.Wake.Before(next)) {
			next = step.Wake
		}
	}
	return next
}

// recordStep writes a step's outcome, unless a command changed the heartbeat meanwhile.
func recordStep(s heartbeat.Store, worker string, step heartbeat.Step, now time.Time) error {
	_, err := s.Update(worker, func(cur *heartbeat.State) (*heartbeat.State, error) {
		if cur == nil || cur.Status != heartbeat.Active {
			return nil, nil
		}
		if step.Send {
			cur.Sent(now)
		}
		cur.Status = step.Status
		return cur, nil
	})
	return err
}

// beatRecorded says, once until it works again, that a beat could not be recorded (a full
// disk): the beats go on all the same, each sent when due (a beat sent and not recorded is
// not sent again before its interval), and the log does not get a line at every one.
func (r *daemon) beatRecorded(worker string, err error) {
	if err == nil {
		if r.beatFailure != "" {
			r.beatFailure = ""
			r.say("heartbeats can be recorded again")
		}
		return
	}
	kind := writeFailure(err)
	if kind == r.beatFailure {
		return
	}
	r.beatFailure = kind
	r.say("cannot record the heartbeat of %s: %v; beats go on, each sent when due", worker, err)
}

// writeFailure is the kind of a failed write: the system's error (no space left), not the
// message, which names a different temporary file each time.
func writeFailure(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}
