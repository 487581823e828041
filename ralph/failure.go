package ralph

import "time"

// A failed iteration's reason is often on the agent's screen alone: an agent that fails fast
// (Claude Code refusing to run as root with --dangerously-skip-permissions, a missing API
// key) says why in a line and exits. The loop keeps those lines with the failure: in
// iterations.jsonl, in iterations.log after the FAIL line, and in the loop state as its last
// failure, for ralph status and the failed notification.

// Failure is a failed iteration as the loop keeps the last one.
type Failure struct {
	Iteration int    `json:"iteration"`
	Exit      string `json:"exit"` // how it ended: "1", "hung", "ready timeout", "api_error"
	At        string `json:"at"`
	// Lines are the agent's last non-blank lines on screen, above its input area, made safe
	// to show (the driver reads them; FailureLines at most).
	Lines []string `json:"last_lines"`
}

// FailureLines is how many of the agent's last lines a failure keeps.
const FailureLines = 5

// failedWith records in d that the iteration of f failed (ending as exit says): its last
// lines are logged after its FAIL line, and it becomes the loop's last failure.
func (d *Decision) failedWith(f RunFacts, exit string) {
	lines := f.LastLines
	if len(lines) > FailureLines {
		lines = lines[len(lines)-FailureLines:]
	}
	lines = append([]string{}, lines...)
	d.Failed = &Failure{Iteration: f.Iteration, Exit: exit, Lines: lines}
	for _, l := range lines {
		d.event("SCREEN", "iteration %d: %s", f.Iteration, l)
	}
}

// keepFailure keeps a decision's failed iteration, recorded at now, as the loop's last one.
func (st *State) keepFailure(dec Decision, now time.Time) {
	if dec.Failed != nil {
		fl := *dec.Failed
		fl.At = now.Format(TimeFormat)
		st.LastFailure = &fl
	}
}

// LastLine is the agent's last line when it failed, "" when its screen showed nothing: most
// often the reason it gave.
func (fl *Failure) LastLine() string {
	if fl == nil || len(fl.Lines) == 0 {
		return ""
	}
	return fl.Lines[len(fl.Lines)-1]
}
