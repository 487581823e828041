package ralph

import (
	"fmt"
	"time"
)

// Usage limits: an agent whose plan's limit is spent cannot work until it resets. The loop
// does not count that as a failure or restart the agent into the same wall; it waits for the
// reset and goes on by itself.

// StatusWaiting is a loop waiting for its agent's usage limit to reset.
const StatusWaiting Status = "waiting"

// PhaseWaiting: the iteration ended at a usage limit; the next starts after the reset.
const PhaseWaiting Phase = "waiting"

// DefaultLimitMargin is added to a limit's reset time before the loop tries again.
const DefaultLimitMargin = 60 * time.Second

// DefaultLimitWait is how long the loop waits when the reset time cannot be read.
const DefaultLimitWait = 30 * time.Minute

// LimitFacts is a usage limit as the driver found it.
type LimitFacts struct {
	Text  string    // the agent's message
	Reset time.Time // when it resets; zero when the message does not say (in a known form)
	Now   time.Time
	By    string // the loop whose agent hit it, when it is another's on the same account
}

// LimitHit makes the loop wait for the reset (plus a margin), or for --limit-wait when the
// reset is not known; the agent is ended, nothing is counted as a failure.
func LimitHit(n int, f LimitFacts, lim Limits) Decision {
	until := f.Reset.Add(lim.EffectiveLimitMargin())
	known := !f.Reset.IsZero() && until.After(f.Now)
	if !known {
		until = f.Now.Add(lim.limitWait())
	}
	who := ""
	if f.By != "" {
		// Which loop saw it, in its own agent's signal or on its own screen: the loops it
		// parks say so, in their status as in their log.
		who = fmt.Sprintf(" (hit by %s, same account)", f.By)
	}
	d := Decision{Status: StatusWaiting, Phase: PhaseWaiting, WaitUntil: until, WaitFor: f.Text + who, EndAgent: true}
	if known {
		d.WaitReset = f.Reset
	}
	d.Say("usage limit%s: %s — waiting until %s, then resuming", who, f.Text, until.Local().Format("2006-01-02 15:04 MST"))
	d.event("LIMIT", "iteration %d %s%s; waiting until %s", n, f.Text, who, until.Format(time.RFC3339))
	return d
}

// LimitOver ends the wait: the loop runs again, with the next iteration.
func LimitOver() Decision {
	d := Decision{Status: StatusRunning, Phase: PhaseEnded}
	d.Say("usage limit reset, resuming")
	d.event("RESUME", "usage limit reset")
	return d
}

func (l Limits) EffectiveLimitMargin() time.Duration {
	if l.LimitMargin > 0 {
		return l.LimitMargin
	}
	return DefaultLimitMargin
}

func (l Limits) limitWait() time.Duration {
	if l.LimitWait > 0 {
		return l.LimitWait
	}
	return DefaultLimitWait
}
