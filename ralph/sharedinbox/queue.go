package sharedinbox

import (
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/inbox"
	"github.com/swarm-dev/swarm/ralph/words"
)

// Queue is a shared inbox as agent mode takes its specs from it (ralph.SpecQueue).
type Queue struct{}

// QueueOf is where the agent takes its specs from: the shared inbox with --shared, else the
// project's own.
func QueueOf(am *ralph.AgentMode) ralph.SpecQueue {
	if am.Shared != nil {
		return Queue{}
	}
	return ralph.LocalQueue{}
}

// Fetch is FETCH in a shared inbox: one look at the remote, then the spec PickShared picks,
// claimed; a spec another agent claimed first is passed over for the next. The session's
// interrupted spec, when someone else holds it now, is lost: its changes are set aside.
func (Queue) Fetch(am *ralph.AgentMode, now time.Time, say func(string, ...any)) (*inbox.Record, bool, error) {
	deliverLeftovers(am, now, say)
	r, err := Sync(am, say)
	if err != nil {
		return nil, false, err
	}
	ib := inbox.Inbox{Root: am.Project}
	var skip []string
	told := map[string]bool{}
	for {
		recs, err := ib.Load()
		if err != nil {
			return nil, false, err
		}
		p, held := inbox.PickShared(recs, inbox.PickFacts{Claims: r.Claims, Current: am.Session.CurrentSpecID,
			Own: am.Session.Claim, Skip: skip, Now: now, Timeout: am.Shared.Timeout()})
		sayHeld(held, told, now, say)
		if p.Lost != nil {
			rec := recs[inbox.Index(recs, am.Session.CurrentSpecID)]
			Lose(am, rec.ID, rec.Spec, ralph.LostWhy(p.Lost), now, say)
			continue
		}
		if p.Index < 0 {
			return nil, false, nil
		}
		rec := recs[p.Index]
		switch step, err := take(am, rec, p, now); step {
		case ralph.ClaimStop:
			return nil, false, fmt.Errorf("%w: %w", ralph.ErrRemoteUnreachable, err)
		case ralph.ClaimSkip:
			say("FETCH: %s %s was claimed by another agent first; trying the next", rec.ID, rec.Spec)
			skip = append(skip, rec.ID)
			if rec.ID == am.Session.CurrentSpecID {
				Lose(am, rec.ID, rec.Spec, ralph.LostWhy(nil), now, say)
			}
			continue
		}
		if p.Taking == inbox.TakeOver {
			c := r.Claims[rec.ID]
			say("CLAIM: %s %s taken over from %s (last renewed %s, past --claim-timeout %s)", rec.ID, rec.Spec,
				c.Holder(), words.Ago(c.At, now), am.Shared.Timeout())
		}
		got, missing, gone, err := activate(am, r, rec, now, say)
		if gone {
			say("FETCH: %s %s was removed from the inbox meanwhile; its claim is released", rec.ID, rec.Spec)
			am.SpecID = rec.ID
			if _, err := Release(am); err != nil {
				say("CLAIM: could not release %s on %s: %s", rec.ID, am.Shared.Remote, words.OneLine(err.Error()))
			}
			am.SpecID = ""
			skip = append(skip, rec.ID)
			continue
		}
		return got, missing, err
	}
}

// sayHeld says once per FETCH which specs are passed over because another agent works on them.
func sayHeld(held []inbox.Claim, told map[string]bool, now time.Time, say func(string, ...any)) {
	for _, c := range held {
		if !told[c.ID] {
			told[c.ID] = true
			say("FETCH: %s %s is claimed by %s (renewed %s); skipped", c.ID, c.Spec, c.Holder(), words.Ago(c.At, now))
		}
	}
}

// activate marks the claimed spec active in the clone's inbox, its file taken from the
// remote when only the remote has it. A spec whose file neither has fails, claim and all; gone
// is a spec removed from the clone's inbox meanwhile.
func activate(am *ralph.AgentMode, r *Remote, rec inbox.Record, now time.Time, say func(string, ...any)) (got *inbox.Record, missing, gone bool, err error) {
	found, ferr := r.ensureSpec(rec.Spec)
	why := ""
	if !found {
		why = "spec file not found: ralph/specs/" + rec.Spec
		if ferr != nil {
			why += " (" + words.OneLine(ferr.Error()) + ")"
		}
	}
	err = inbox.Inbox{Root: am.Project}.Update(func(recs []inbox.Record) ([]inbox.Record, error) {
		i := inbox.Index(recs, rec.ID)
		switch {
		case i < 0:
			gone = true
		case why != "":
			inbox.Finish(recs, rec.ID, why, now)
		default:
			inbox.Activate(recs, i, now)
			rec = recs[i]
		}
		return recs, nil
	})
	if err != nil || gone {
		return nil, false, gone, err
	}
	if why != "" {
		if _, ferr := finish(am, rec.ID, rec.Spec, am.Session.Claim, Finished{Error: why}, now); ferr != nil {
			say("CLAIM: could not mark %s failed on %s: %s", rec.ID, am.Shared.Remote, words.OneLine(ferr.Error()))
		}
	}
	return &rec, why != "", false, nil
}

// Failed marks the current spec failed in the clone's inbox and on its claim.
func (Queue) Failed(am *ralph.AgentMode, why string, now time.Time, say func(string, ...any)) error {
	if _, err := Finish(am, Finished{Error: why}, now); err != nil {
		say("CLAIM: could not mark %s failed on %s: %s", am.SpecID, am.Shared.Remote, words.OneLine(err.Error()))
	}
	return ralph.FinishSpec(am, why, now)
}

// Lose stops the agent's work on a spec whose claim is someone else's now: the checkout's
// changes are set aside as a failed spec's are, the spec is recorded failed in the clone's
// inbox with why, and the session forgets it. The claim is not touched: it is not the
// agent's any more.
func Lose(am *ralph.AgentMode, id, spec, why string, now time.Time, say func(string, ...any)) {
	say("LOST: %s %s: %s; this agent stops working on it", id, spec, why)
	msg := "ralph: failed " + ralph.SpecName(spec)
	drop := am.OnFailure == ralph.OnFailureReset
	switch moved, err := git.SetAside(am.Project, msg, ralph.AgentKeep, drop); {
	case err != nil:
		say("could not set the changes aside, they stay in the checkout: %s", words.OneLine(err.Error()))
	case moved && drop:
		say("RESET: the spec's changes were discarded")
	case moved:
		say("STASH: %q (git stash list)", msg)
	}
	err := inbox.Inbox{Root: am.Project}.Update(func(recs []inbox.Record) ([]inbox.Record, error) {
		inbox.Finish(recs, id, why, now)
		return recs, nil
	})
	if err != nil {
		say("cannot record %s in the inbox: %v", id, err)
	}
	am.SpecLost()
}
