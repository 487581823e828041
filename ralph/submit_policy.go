package ralph

import "time"

// Making sure the agent took its prompt. The prompt is pasted into the agent's input and
// Enter pressed; the driver then looks at the agent until something says the Enter did its
// work. An agent can miss it: a busy TUI drops it, another takes an Enter that comes right
// after a paste for a newline in it, and on a loaded machine either happens at any time. A
// screen that changed after the Enter is no proof then (it may be the paste drawn late); a
// prompt still sitting in the agent's input is proof of the opposite.

// SubmitLook is what one look at an agent found after Enter was pressed on its prompt.
type SubmitLook struct {
	Ended  bool // its process ended
	Said   bool // its own signal said it took the prompt
	Busy   bool // its screen shows it working
	Held   bool // its input area still holds the prompt
	Echoed bool // the prompt shows above its input area as it did not before: its echo
	// Changed: the screen differs from the one the paste left; with nothing better to go by,
	// the agent's reaction.
	Changed bool
	// Hooks: the agent's hooks report to swarm, so it would have said it took the prompt; a
	// screen that merely changed is no sign then (it may be the agent's start-up).
	Hooks bool
	// Steady is how long the screen has looked as it does now, with nothing printed, counted
	// from the last Enter at most.
	Steady time.Duration
	Since  time.Duration // since the last Enter
	Enters int           // Enters pressed on the prompt so far
}

// SubmitStep is what the driver does after a look.
type SubmitStep int

// The steps of making sure the agent took its prompt.
const (
	SubmitWait        SubmitStep = iota // look again
	SubmitTaken                         // the agent took the prompt: watch it work
	SubmitEnterHeld                     // the prompt sits in the agent's input: press Enter again
	SubmitEnterUnseen                   // no reaction at all (a paste can swallow an Enter): press Enter again
	SubmitStuck                         // the prompt is still in the input after MaxEnters: watch the agent as it is
	SubmitUnconfirmed                   // no sign either way after Enter was pressed again: watch the agent as it is
)

// MaxEnters bounds the Enters pressed on one prompt.
const MaxEnters = 3

// heldPatience bounds, in confirm periods since an Enter, the wait for a screen that holds the
// prompt to stand still: one that keeps changing (a clock, an animation) must not keep the
// prompt in the input for ever.
const heldPatience = 3

// AfterEnter decides what a look after Enter calls for; confirm is how long an agent has to
// react to an Enter. The agent took the prompt when it ended, said so, works, or shows the
// prompt's echo; a screen that merely changed counts only once confirm has passed, since it
// may be the paste drawn late with the Enter missed. A prompt seen in the input is pressed
// again once the screen has stood still for confirm: an agent still reading its input on a
// loaded machine may be about to take it, and an Enter it reads after the prompt would reach
// it as an empty message. Without any reaction at all, Enter is pressed again once, after the
// first Enter, as a paste can swallow it.
func AfterEnter(l SubmitLook, confirm time.Duration) SubmitStep {
	switch {
	case l.Ended || l.Said || l.Busy:
		return SubmitTaken
	case l.Held:
		if l.Steady < confirm && l.Since < heldPatience*confirm {
			return SubmitWait
		}
		if l.Enters >= MaxEnters {
			return SubmitStuck
		}
		return SubmitEnterHeld
	case l.Echoed:
		return SubmitTaken
	case l.Since < confirm:
		return SubmitWait
	case l.Changed && !l.Hooks:
		return SubmitTaken
	case l.Enters == 1:
		return SubmitEnterUnseen
	}
	return SubmitUnconfirmed
}
