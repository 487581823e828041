package ralph

import "time"

// Looking for an agent's input prompt. A loop waiting for it looks at the agent's screen (a
// capture through tmux) again and again until the prompt shows, a dialog is in the way, or the
// ready timeout ends the iteration; an agent that never shows one would cost the Regent a look
// every poll for the whole timeout, iteration after iteration. A screen that stays as it was
// needs fewer looks: where the pane's output is followed, whatever the agent prints brings the
// next look forward anyway, and where it is not, a change is at most a second late.

// ReadyLookMax is the longest wait between two looks at an agent whose screen stays the same
// without an input prompt, where its pane's output is followed; ReadyLookMaxUnfollowed where
// it is not (then only a look sees a change).
const (
	ReadyLookMax           = 5 * time.Second
	ReadyLookMaxUnfollowed = time.Second
)

// ReadyLookWait is how long a loop waits before it looks again at an agent that has not shown
// its input prompt, after still looks in a row found the same screen without one: poll at
// first (and whenever the screen changes), then twice as long after each such look, up to
// ReadyLookMax (ReadyLookMaxUnfollowed where the pane's output is not followed). A screen that
// shows the prompt (waiting for it to settle, or for the agent's word that its session started)
// is not a still one: it is looked at every poll.
func ReadyLookWait(still int, followed bool, poll time.Duration) time.Duration {
	limit := ReadyLookMaxUnfollowed
	if followed {
		limit = ReadyLookMax
	}
	d := poll
	for i := 0; i < still && d < limit; i++ {
		d *= 2
	}
	return max(poll, min(d, limit))
}
