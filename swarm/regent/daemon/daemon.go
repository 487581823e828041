package daemon

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/driver"
	"github.com/swarm-dev/swarm/ralph/proc"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/heartbeat"
	"github.com/swarm-dev/swarm/swarm/loop"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// The Regent: one process per state directory drives every supervised loop, each in a
// goroutine of its own on the same policy core a foreground monitor uses. It picks loops up
// from their state on disk (at start, when a command wakes it, and every rescanEvery), so a
// Regent started again by its keeper after a crash takes over where its predecessor stopped.
// A panic in one loop's goroutine fails that loop alone.

// rescanEvery bounds how long a loop can go without a monitor when the command that should
// have woken the Regent did not (it died first).
const rescanEvery = 60 * time.Second

// retryAfter is how long a loop whose monitor ended while it still needed one waits before
// the Regent drives it again, so a loop that cannot be driven does not spin.
const retryAfter = time.Second

// panicHookEnv names a loop whose goroutine panics as it starts: how the scenarios show that
// a fault in one loop fails that loop alone.
const panicHookEnv = "SWARM_REGENT_TEST_PANIC"

// daemon is the running Regent: the loops it drives and what it has let go of.
type daemon struct {
	m *worker.Machine
	// ctx is the daemon's: every loop's context derives from it, so cancelling it (the
	// daemon stopping) reaches every loop it drives.
	ctx     context.Context
	stop    context.CancelFunc
	log     io.Writer
	started time.Time
	wake    chan struct{}
	quit    chan struct{}
	// beatWake wakes the goroutine that sends the heartbeats (heartbeats.go).
	beatWake chan struct{}
	// olderRunner: a heartbeat runner of an older swarm held the heartbeats when last looked
	// (said once; only the heartbeats' goroutine uses it).
	olderRunner bool
	// beatFailure: the kind of failure to record a beat said last, until one is recorded
	// (only the heartbeats' goroutine uses it).
	beatFailure string
	events      atomic.Int64
	watch       *paneWatch

	quitOnce sync.Once

	mu      sync.Mutex
	loops   map[string]*drivenLoop
	dropped map[string]bool // loops let go of by a kill that could not be recorded
	crashed map[string]bool // loops whose goroutine panicked: never driven again here
	// claimFails counts the claims in a row that failed, of loops not claimed since
	// (daemon_claims.go).
	claimFails map[string]claimFailures
	panics     int
}

// drivenLoop is one loop the Regent drives; cancelling its context aborts it.
type drivenLoop struct {
	ctx    context.Context
	cancel context.CancelFunc
}

func newDaemon(m *worker.Machine, log io.Writer) *daemon {
	ctx, stop := context.WithCancel(context.Background())
	r := &daemon{m: m, ctx: ctx, stop: stop, log: log, started: time.Now(), wake: make(chan struct{}, 1),
		quit: make(chan struct{}), beatWake: make(chan struct{}, 1), loops: map[string]*drivenLoop{}, dropped: map[string]bool{},
		crashed: map[string]bool{}, claimFails: map[string]claimFailures{}}
	r.watch = newPaneWatch(r)
	return r
}

func (r *daemon) say(format string, args ...any) {
	fmt.Fprintf(r.log, format+"\n", args...)
}

// endLeftChildren ends the checkers, hooks and test commands a Regent that died left running
// (they would overlap their own re-runs), and has this one's recorded for its successor.
func (r *daemon) endLeftChildren() {
	dir := filepath.Join(r.m.Dir().Root, "regent-children")
	if n := driver.EndLeftChildren(dir, 2*time.Second); n > 0 {
		r.say("ended %d command(s) a Regent before this one left running", n)
	}
	if err := driver.KeepChildrenIn(dir); err != nil {
		r.say("cannot keep a record of the commands it runs: %v", err)
	}
}

// wakeUp has the main loop look at the loops again.
func (r *daemon) wakeUp() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// wakeAll has the main loop look at the loops, and the heartbeats' goroutine at the
// heartbeats, again: a command changed one of them.
func (r *daemon) wakeAll() {
	r.wakeUp()
	select {
	case r.beatWake <- struct{}{}:
	default:
	}
}

// run drives loops until neither a loop nor a heartbeat needs the Regent (false), or it is
// told to quit (true).
func (r *daemon) run(lock *state.Lock) (quit bool) {
	for {
		r.scan()
		if r.unneeded() && r.mayLeave(lock) {
			r.say("no loop or heartbeat needs the Regent; leaving")
			return false
		}
		t := time.NewTimer(r.rescanIn())
		select {
		case <-r.wake:
		case <-t.C:
		case <-r.quit:
			t.Stop()
			return true
		}
		t.Stop()
	}
}

// unneeded reports whether nothing keeps the Regent: it is idle and no heartbeat is active.
func (r *daemon) unneeded() bool {
	return r.idle() && !heartbeat.StoreFor(r.m.Dir()).AnyActive()
}

// idle reports whether the Regent has no loop to do anything for: none to drive, no dropped
// loop whose kill is still to be recorded, and none to claim again.
func (r *daemon) idle() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.loops) == 0 && len(r.dropped) == 0 && len(r.claimFails) == 0
}

// mayLeave lets the Regent go when neither a loop nor a heartbeat needs it, decided under the
// start lock with its own lock given up inside it: a command starting a loop or activating a
// heartbeat (which calls Ensure after it) either is seen here or finds no Regent and starts
// one.
func (r *daemon) mayLeave(lock *state.Lock) bool {
	start, err := state.AcquireLock(regent.FilesOf(r.m.Dir()).Start)
	if err != nil {
		// A state directory that is gone (removed with its tests, say) needs no Regent.
		if _, serr := os.Stat(r.m.Dir().Root); os.IsNotExist(serr) {
			lock.Unlock()
			return true
		}
		return false
	}
	defer start.Unlock()
	r.scan()
	if !r.unneeded() {
		return false
	}
	lock.Unlock()
	return true
}

// scan starts a goroutine for every supervised loop that should be running and has no
// monitor.
func (r *daemon) scan() {
	r.recordDropped()
	entries, err := os.ReadDir(filepath.Join(r.m.Dir().Root, "ralph"))
	if err != nil {
		return
	}
	for _, ent := range entries {
		name := ent.Name()
		if !ent.IsDir() || worker.ValidateName(name) != nil || r.has(name) || r.claimPaused(name, time.Now()) {
			continue
		}
		ld := ralph.DirFor(r.m.Dir(), name)
		if ld.KillMarked() {
			r.keepDropped(name)
			continue
		}
		st, err := ld.Load()
		if err != nil {
			continue
		}
		if !regent.Drives(ld, st) {
			r.forgetClaims(name)
			r.dismissLeftShell(ld, name, st.Status)
			continue
		}
		lock, ok, err := state.TryLock(ld.MonitorLockPath())
		if err != nil || !ok {
			continue // a monitor of its own drives it
		}
		r.start(name, lock)
	}
}

// dismissLeftShell ends the shell left in a finished loop's pane by a monitor that was killed
// between recording the end and dismissing it (see driver.DismissPaneShell), when no monitor drives
// the loop: the pane then ends as it does when its loop stops.
func (r *daemon) dismissLeftShell(ld ralph.Dir, name string, status ralph.Status) {
	if status != ralph.StatusStopped && status != ralph.StatusFailed {
		return
	}
	if _, err := os.Stat(r.m.Dir().PaneShellPath(name)); err != nil {
		return
	}
	lock, ok, err := state.TryLock(ld.MonitorLockPath())
	if err != nil || !ok {
		return
	}
	defer lock.Unlock()
	if driver.DismissPaneShell(r.m.Dir(), name) {
		r.say("loop %s: told the shell left in its pane to end", name)
	}
}

func (r *daemon) has(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loops[name] != nil || r.dropped[name] || r.crashed[name]
}

func (r *daemon) start(name string, lock *state.Lock) {
	go r.drive(name, lock, r.track(name))
}

// track records that the Regent drives the loop, under a context of the loop's own.
func (r *daemon) track(name string) *drivenLoop {
	ctx, cancel := context.WithCancel(r.ctx)
	dl := &drivenLoop{ctx: ctx, cancel: cancel}
	r.mu.Lock()
	r.loops[name] = dl
	r.mu.Unlock()
	return dl
}

// drive runs one loop in its goroutine until it ends, pauses or is dropped.
func (r *daemon) drive(name string, lock *state.Lock, dl *drivenLoop) {
	defer lock.Unlock()
	defer r.ended(name)
	// The daemon's context lets go of the loop's once the loop has ended.
	defer dl.cancel()
	le := r.m.OnServerOf(name)
	ld := ralph.DirFor(le.Dir(), name)
	out := loop.MonitorLog(ld)
	defer func() {
		if p := recover(); p != nil {
			r.failCrashed(le, name, lock, fmt.Sprint(p), out)
		}
	}()
	if os.Getenv(panicHookEnv) == name {
		panic("test fault in the loop's goroutine")
	}
	tm := r.watch.follow(le, name)
	defer r.watch.unfollow(name)
	if !r.claimFailing(name) {
		r.say("driving loop %s", name)
	}
	relaxed := proc.CanWatchExits()
	status, err := loop.On(le).Drive(lock, loop.Drive{Name: name, Out: out, Detail: out, Context: dl.ctx, Resurrect: true,
		Regent: true, Tmux: tm, Relaxed: relaxed, Claimed: func() { r.claimed(name) }})
	if status == "" && err != nil {
		r.claimFailed(name, err, out)
		return
	}
	if err != nil {
		fmt.Fprintf(out, "swarm: error: %v\n", err)
	}
	r.say("loop %s: monitor left (%s)", name, statusWord(status))
}

func statusWord(s ralph.Status) string {
	if s == "" {
		return "not claimed"
	}
	return string(s)
}

// failCrashed fails a loop whose goroutine panicked; the Regent and its other loops go on.
func (r *daemon) failCrashed(m *worker.Machine, name string, lock *state.Lock, fault string, out io.Writer) {
	r.mu.Lock()
	r.panics++
	r.crashed[name] = true
	r.mu.Unlock()
	r.say("loop %s: panic: %s\n%s", name, fault, debug.Stack())
	loop.On(m).Driver(lock, loop.Drive{Name: name, Out: out, Detail: out}).Crashed(fault)
}

// ended forgets a loop whose monitor left; one that still needs a monitor (it did not mean
// to leave) is driven again after retryAfter.
func (r *daemon) ended(name string) {
	r.mu.Lock()
	delete(r.loops, name)
	done := r.dropped[name] || r.crashed[name]
	r.mu.Unlock()
	if !done && regent.NeedsMonitor(ralph.DirFor(r.m.Dir(), name)) {
		time.AfterFunc(r.retryIn(name), r.wakeUp)
		return
	}
	r.forgetClaims(name)
	r.wakeUp()
}

// drop aborts a loop's monitor and keeps the Regent from driving it again.
func (r *daemon) drop(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropped[name] = true
	delete(r.claimFails, name) // not claimed again: nothing is owed it but its kill's record
	if dl := r.loops[name]; dl != nil {
		dl.cancel()
	}
}

// pauseAll asks every loop to pause after its current iteration (SIGTERM, a first SIGINT),
// as a signal to a loop's own monitor does.
func (r *daemon) pauseAll(why string) {
	for _, name := range r.names() {
		ld := ralph.DirFor(r.m.Dir(), name)
		loop.PauseForSignal(ld, name, why, loop.MonitorLog(ld))
	}
}

// abortAll ends every loop's agent at once (SIGQUIT, a second SIGINT).
func (r *daemon) abortAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Each loop's own, not the daemon's: a loop the Regent drives after this one starts afresh.
	for _, dl := range r.loops {
		dl.cancel()
	}
}

func (r *daemon) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for name := range r.loops {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
