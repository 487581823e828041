package driver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// lostState handles a loop state file that cannot be read while the loop runs. A corrupt
// file has already been set aside (state.ReadJSON does that, whoever read it first); the
// monitor rebuilds the file from what it last read, marks the loop failed, ends the agent
// (nothing would watch it) and escalates, so `ralph status` and `ralph logs` keep working and
// the user learns what happened.
func (l *Loop) lostState(err error) error {
	path := l.cfg.Dir.StatePath()
	if l.lastGood == nil {
		return fmt.Errorf("cannot read loop state %s: %w", path, err)
	}
	why, ok := lostWhy(path)
	if !ok {
		return fmt.Errorf("cannot read loop state %s: %w", path, err)
	}
	rebuilt := *l.lastGood
	rebuilt.MonitorPID = 0
	var d ralph.Decision
	d.Say("%s; stopping the loop", why)
	d.Stop(ralph.StatusFailed, "state_corrupt", why)
	d.EndAgent = true
	d.Escalate = why
	if werr := l.cfg.Dir.Create(&rebuilt); werr != nil {
		return fmt.Errorf("%s, and it cannot be rewritten: %v", why, werr)
	}
	l.transition(&rebuilt, l.view.now(), d)
	return fmt.Errorf("%s", why)
}

// lostWhy says what became of a loop's state file that cannot be read, setting aside what
// sits in its place when that is no file (a directory, say: no write would replace it). ok
// is false when the loop itself is gone (its directory removed), which is no failure of it.
func lostWhy(path string) (string, bool) {
	if unreadableThing(path) {
		if _, err := state.SetAside(path); err != nil {
			return fmt.Sprintf("loop state %s is not a file and cannot be moved aside (%v)", path, err), true
		}
	}
	if moved := setAsideCopies(path); len(moved) > 0 {
		return fmt.Sprintf("loop state %s was corrupt (kept as %s)", path, filepath.Base(moved[len(moved)-1])), true
	}
	if _, err := os.Stat(filepath.Dir(path)); err == nil {
		return fmt.Sprintf("loop state %s was removed while the loop ran", path), true
	}
	return "", false
}

// setAsideCopies lists the corrupt copies of a state file, oldest first.
func setAsideCopies(path string) []string {
	moved, _ := filepath.Glob(path + ".corrupt-*")
	return moved
}

// unreadableThing reports whether something other than a regular file sits at path, where
// the loop's state belongs: no write would ever replace it.
func unreadableThing(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	return !fi.Mode().IsRegular()
}
