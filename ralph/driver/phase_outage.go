package driver

import (
	"errors"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/tmux"
)

// A tmux server that stops answering (stopped, wedged): its agents may well be working, so
// the loop neither ends nor restarts them on what it cannot see. It says so once, escalates,
// keeps asking, and counts none of the time it could not look against the agent.

// outage follows the loop's tmux server through its silences: whether one is under way, what
// is said and escalated as it begins and ends. It keeps the outage's own time and reason, so
// the watch asks it rather than keeping them among its own.
type outage struct {
	clock  Clock
	procs  Procs
	dir    ralph.Dir
	rec    *recorder
	notify *notifications
	poll   time.Duration // how often a still screen is looked at (Config.ScreenPoll)
	drv    outageNeeds
	silent *silence // the outage under way, nil while the server answers
}

// outageNeeds are what an outage asks of the view of the agent: a look at the screen, which
// tells whether the server answers again.
type outageNeeds interface {
	capture(a agent, history int) ([]string, error)
}

// lasting reports whether the server is silent (as last asked).
func (o *outage) lasting() bool { return o.silent != nil }

// silence is an outage of the loop's tmux server as the loop saw it.
type silence struct {
	since time.Time
	why   string
	// escalated: the outage was escalated; toldStart: the iteration whose start the loop
	// said waits for the server (0: none).
	escalated bool
	toldStart int
}

// notAnswering reports whether err is the server's silence, and records it: the first time
// of an outage, the loop says so and escalates.
func (o *outage) notAnswering(err error) bool {
	if !o.begin(err) {
		return false
	}
	if !o.silent.escalated {
		o.escalateSilence(o.silent.why + " — the agent is left running; waiting for the server")
	}
	return true
}

// begin reports whether err is the server's silence, and records when it began; it neither
// says nor escalates anything.
func (o *outage) begin(err error) bool {
	if !errors.Is(err, tmux.ErrNotAnswering) {
		return false
	}
	if o.silent == nil {
		o.silent = &silence{since: o.clock.Now(), why: err.Error()}
	}
	return true
}

// escalateSilence tells the log, the supervision counters and its webhook (where it has one)
// that the loop cannot watch or start its agent (reason); the loop itself goes on. An outage
// is under way.
func (o *outage) escalateSilence(reason string) {
	o.silent.escalated = true
	why := o.silent.why
	o.rec.supervisionSay("%s", reason)
	o.rec.logEvent("ESCALATE", reason)
	o.rec.updateSupervision(func(rs *ralph.SupervisionState) { rs.Escalations++ })
	cur, err := o.dir.Load()
	if err != nil {
		return
	}
	rc := ralph.EffectiveSupervision(cur.Supervision)
	if !rc.Enabled || rc.Webhook == "" {
		return
	}
	o.notify.send(cur, ralph.Notice{Event: ralph.NotifyBlocked, Reason: why}, nil, o.notify.escalationHook(rc.Webhook, "tmux server not answering"))
}

// whileSilent is the watch's look while the server does not answer: the agent's process and
// the loop's files are looked at as ever (watchOnce), the screen only to learn whether the
// server answers again. It reports whether the iteration ended (it does not, here).
func (o *outage) whileSilent(a *agent, w *screenWatch, next *watchTimes) bool {
	now := w.facts.Now
	if now.Before(next.screen) {
		return false
	}
	next.screen = now.Add(screenEvery(o.poll, w.facts.Inactivity))
	if _, err := o.drv.capture(*a, 0); err != nil {
		o.notAnswering(err)
		return false
	}
	o.serverBack(w)
	return false
}

// serverBack ends an outage: the loop says how long it lasted, and the agent's quiet and hang
// clocks start again now (what it did meanwhile could not be seen).
func (o *outage) serverBack(w *screenWatch) {
	if !o.answered() {
		return
	}
	now := o.clock.Now()
	w.facts.LastChange, w.facts.LastProgress = now, now
	w.lastHash, w.lastSubst = "", ""
}

// answered ends an outage, saying how long it lasted; it reports whether there was one.
func (o *outage) answered() bool {
	if o.silent == nil {
		return false
	}
	o.rec.supervisionSay("the tmux server answers again (after %s)", words.Duration(o.clock.Now().Sub(o.silent.since)))
	o.silent = nil
	return true
}

// startFacts is what the loop knows of the outage under way as iteration n is to start.
func (o *outage) startFacts(n int) ralph.SilentStartFacts {
	return ralph.SilentStartFacts{Iteration: n, Server: o.silent.why, Silent: o.clock.Now().Sub(o.silent.since),
		Escalated: o.silent.escalated, Told: o.silent.toldStart == n}
}

// silentAgent is the agent as last seen (seen), for a look the server did not answer: its
// process says whether it still runs.
func (o *outage) silentAgent(seen agent, paneID string) agent {
	a := seen
	if a.paneID == "" {
		a.paneID = paneID
	}
	if a.pid > 0 && !o.procs.Alive(a.pid) {
		a.dead = true
	}
	return a
}
