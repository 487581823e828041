package ralph

import (
	"fmt"
	"path/filepath"
)

// lostState handles a loop state file that cannot be read while the loop runs. A corrupt
// file has already been set aside (state.ReadJSON does that, whoever read it first); the
// monitor rebuilds the file from what it last read, marks the loop failed, ends the agent
// (nothing would watch it) and escalates, so `ralph status` and `ralph logs` keep working and
// the user learns what happened.
func (l *Loop) lostState(err error) error {
	path := l.cfg.Dir.statePath()
	moved := setAsideCopies(path)
	if l.lastGood == nil || len(moved) == 0 {
		return fmt.Errorf("cannot read loop state %s: %w", path, err)
	}
	why := fmt.Sprintf("loop state %s was corrupt (kept as %s)", path, filepath.Base(moved[len(moved)-1]))
	rebuilt := *l.lastGood
	rebuilt.MonitorPID = 0
	var d Decision
	d.say("%s; stopping the loop", why)
	d.stop(StatusFailed, "state_corrupt", why)
	d.EndAgent = true
	d.Escalate = why
	if werr := l.cfg.Dir.Create(&rebuilt); werr != nil {
		return fmt.Errorf("%s, and it cannot be rewritten: %v", why, werr)
	}
	l.transition(&rebuilt, l.agentNow(), d)
	return fmt.Errorf("%s", why)
}

// setAsideCopies lists the corrupt copies of a state file, oldest first.
func setAsideCopies(path string) []string {
	moved, _ := filepath.Glob(path + ".corrupt-*")
	return moved
}
