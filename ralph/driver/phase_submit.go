package driver

import (
	"fmt"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
)

// Submitting the prompt: the paste, its Enter, and the looks that make sure the agent took
// it (ralph.AfterEnter decides; this carries it out).

// submit pastes the prompt, presses Enter and makes sure the agent took it: Enter is pressed
// again when the prompt still sits in the agent's input, or when the agent shows no reaction
// at all (a paste can swallow the first Enter), at most ralph.MaxEnters times in all. It
// returns when the agent's screen last moved after an Enter: its quiet time counts from there.
func (dv *promptDelivery) submit(st *ralph.State, a agent, lines []string, prompt string, base int) time.Time {
	unlock := lockInput(dv.cfg)
	before := screen.ActivityHashOf(lines)
	// Enter submits: newlines after the last line would reach the agent as empty lines.
	prompt = strings.TrimRight(prompt, " \t\r\n")
	if err := dv.paste(a, prompt, base); err != nil {
		dv.rec.say("could not type the prompt: %v", err)
	}
	// From here on the prompt is in the agent's input: a monitor taking over must only submit it.
	dv.rec.note(func(s *ralph.State) error { s.Phase, s.PasteBuffer = ralph.PhaseSubmitting, ""; return nil })
	// Enter goes in once the agent has finished drawing the paste: one pressed while a busy
	// agent still takes in a long paste is lost, and the paste's own drawing would then pass
	// for the agent taking the prompt.
	dv.untilQuiet(a, dv.cfg.InputSettle, inputQuietMax)
	pasted := before
	if cur, err := dv.view.capture(a, 0); err == nil {
		pasted = screen.ActivityHashOf(cur)
	}
	_ = dv.cfg.Tmux.SendKeys(a.paneID, "Enter")
	unlock()
	sub := &submission{ready: lines, prompt: prompt, pasted: pasted, seen: pasted,
		hooks: dv.signals.agentSaid(st, ralph.EventSessionStart)}
	sub.entered(dv.cfg.Clock.Now())
	dv.confirmTaken(st, sub)
	return sub.still
}

// submission is a prompt being submitted, as the looks after its Enter compare with it.
type submission struct {
	ready  []string // the screen at the agent's input prompt, before the paste
	prompt string
	pasted string // activity hash of the screen the paste left
	hooks  bool   // the agent's hooks report to swarm
	enters int
	last   time.Time // when Enter was last pressed
	seen   string    // activity hash of the screen seen last
	since  time.Time // since when it has looked like that (the last Enter at the earliest)
	still  time.Time // since when it has neither changed nor printed (since, or later)
}

// entered counts an Enter pressed at now.
func (sub *submission) entered(now time.Time) {
	sub.enters++
	sub.last, sub.since, sub.still = now, now, now
}

// confirmTaken looks at the agent until ralph.AfterEnter says it took the prompt, or that
// pressing Enter further would not help, and presses Enter again when it says so.
func (dv *promptDelivery) confirmTaken(st *ralph.State, sub *submission) {
	for {
		cur := dv.view.now()
		switch ralph.AfterEnter(dv.lookAfterEnter(st, cur, sub), dv.cfg.ConfirmAfter) {
		case ralph.SubmitTaken, ralph.SubmitUnconfirmed:
			return
		case ralph.SubmitEnterHeld:
			dv.rec.say("the prompt is still in the agent's input; pressing Enter again")
			dv.rec.logEvent("RETRY", fmt.Sprintf("iteration %d prompt still in the agent's input, Enter pressed again", st.CurrentIteration))
			dv.enterAgain(cur, sub)
		case ralph.SubmitEnterUnseen:
			dv.rec.say("agent did not react to the prompt; pressing Enter again")
			dv.rec.logEvent("RETRY", fmt.Sprintf("iteration %d prompt not picked up, Enter pressed again", st.CurrentIteration))
			dv.enterAgain(cur, sub)
		case ralph.SubmitStuck:
			dv.rec.say("the prompt is still in the agent's input after %d Enters; watching the agent as it is", sub.enters)
			dv.rec.logEvent("WARN", fmt.Sprintf("iteration %d prompt still in the agent's input after %d Enters", st.CurrentIteration, sub.enters))
			return
		}
		dv.untilPrinted(cur, dv.cfg.ReadyPoll)
	}
}

// enterAgain presses Enter once more, under the input lock as every key the loop types.
func (dv *promptDelivery) enterAgain(a agent, sub *submission) {
	unlock := lockInput(dv.cfg)
	_ = dv.cfg.Tmux.SendKeys(a.paneID, "Enter")
	unlock()
	sub.entered(dv.cfg.Clock.Now())
}

// lookAfterEnter is one look at the agent after Enter: the facts ralph.AfterEnter reads.
func (dv *promptDelivery) lookAfterEnter(st *ralph.State, cur agent, sub *submission) ralph.SubmitLook {
	now := dv.cfg.Clock.Now()
	l := ralph.SubmitLook{Ended: cur.dead, Hooks: sub.hooks, Enters: sub.enters, Since: now.Sub(sub.last),
		// The agent's own word that it took the prompt comes before any sign on screen.
		Said: dv.signals.agentSaid(st, ralph.EventUserPromptSubmit)}
	if l.Ended || l.Said {
		return l
	}
	lines, err := dv.view.capture(cur, 0)
	if err != nil {
		return l
	}
	if hash := screen.ActivityHashOf(lines); hash != sub.seen {
		sub.seen, sub.since = hash, now
	}
	sub.still = sub.since
	if feed := dv.pane.follow(cur); feed != nil {
		if out := feed.lastOutput(); out.After(sub.still) && !out.After(now) {
			sub.still = out
		}
	}
	l.Steady = now.Sub(sub.still)
	l.Changed = sub.seen != sub.pasted
	l.Busy = screen.Classify(strings.Join(lines, "\n"), dv.pats.readyRE).Kind == screen.Busy
	l.Held = screen.HoldsPrompt(lines, sub.ready, sub.prompt)
	l.Echoed = !l.Held && screen.EchoesPrompt(lines, sub.ready, sub.prompt)
	return l
}

// lockInput takes the worker's input lock while the loop types into its pane, so that a send or
// a heartbeat does not land between a paste and its Enter, and returns its release. A typist
// that holds it too long does not stop the loop: it types all the same.
func lockInput(cfg *Config) (unlock func()) {
	if cfg.Workers == nil {
		return func() {}
	}
	lock, ok, err := cfg.Workers.LockInput(cfg.Name)
	if err != nil || !ok {
		return func() {}
	}
	return lock.Unlock
}
