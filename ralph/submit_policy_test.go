package ralph

import (
	"testing"
	"time"
)

// One case per transition of making sure the agent took its prompt.
func TestAfterEnter(t *testing.T) {
	s := time.Second
	for _, c := range []struct {
		name string
		look SubmitLook
		want SubmitStep
	}{
		{"the agent ended", SubmitLook{Ended: true, Held: true, Enters: 1}, SubmitTaken},
		{"its signal said it took the prompt", SubmitLook{Said: true, Held: true, Enters: 1}, SubmitTaken},
		{"it works", SubmitLook{Busy: true, Held: true, Enters: 1}, SubmitTaken},
		{"held, the screen just changed", SubmitLook{Held: true, Changed: true, Steady: s, Since: 2 * s, Enters: 1}, SubmitWait},
		{"held on a screen that stood still", SubmitLook{Held: true, Changed: true, Steady: 3 * s, Since: 4 * s, Enters: 1}, SubmitEnterHeld},
		{"held on the screen the paste left", SubmitLook{Held: true, Steady: 3 * s, Since: 3 * s, Enters: 1}, SubmitEnterHeld},
		{"held on a screen that never stands still", SubmitLook{Held: true, Changed: true, Steady: 0, Since: 9 * s, Enters: 1}, SubmitEnterHeld},
		{"held, the second Enter missed too", SubmitLook{Held: true, Steady: 3 * s, Since: 3 * s, Enters: 2}, SubmitEnterHeld},
		{"held after the last Enter", SubmitLook{Held: true, Steady: 3 * s, Since: 3 * s, Enters: MaxEnters}, SubmitStuck},
		{"held, hooks or not", SubmitLook{Held: true, Hooks: true, Steady: 3 * s, Since: 3 * s, Enters: 1}, SubmitEnterHeld},
		{"its echo", SubmitLook{Echoed: true, Changed: true, Since: 100 * time.Millisecond, Enters: 1}, SubmitTaken},
		{"its echo, with hooks", SubmitLook{Echoed: true, Changed: true, Hooks: true, Since: 100 * time.Millisecond, Enters: 1}, SubmitTaken},
		{"changed, no echo yet: maybe the paste drawn late", SubmitLook{Changed: true, Steady: 2 * s, Since: 2 * s, Enters: 1}, SubmitWait},
		{"changed, no echo, for as long as an agent has to react", SubmitLook{Changed: true, Steady: s, Since: 3 * s, Enters: 1}, SubmitTaken},
		{"changed, with hooks: no sign", SubmitLook{Changed: true, Hooks: true, Steady: s, Since: s, Enters: 1}, SubmitWait},
		{"no sign yet", SubmitLook{Steady: 2 * s, Since: 2 * s, Enters: 1}, SubmitWait},
		{"no sign after the first Enter", SubmitLook{Steady: 3 * s, Since: 3 * s, Enters: 1}, SubmitEnterUnseen},
		{"with hooks, no signal after the first Enter", SubmitLook{Changed: true, Hooks: true, Steady: 3 * s, Since: 3 * s, Enters: 1}, SubmitEnterUnseen},
		{"no sign after Enter pressed again", SubmitLook{Steady: 3 * s, Since: 3 * s, Enters: 2}, SubmitUnconfirmed},
		{"changed after Enter pressed again", SubmitLook{Changed: true, Steady: s, Since: 3 * s, Enters: 2}, SubmitTaken},
	} {
		if got := AfterEnter(c.look, 3*time.Second); got != c.want {
			t.Errorf("%s: AfterEnter = %d, want %d", c.name, got, c.want)
		}
	}
}
