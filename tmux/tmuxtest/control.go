package tmuxtest

import (
	"fmt"
	"sort"

	"github.com/swarm-dev/swarm/tmux"
)

// What a test does to a Fake's panes from outside, and what it reads back.

// Do runs fn on the pane with the Fake locked, for changes the helpers do not cover.
func (f *Fake) Do(paneID string, fn func(p *FakePane)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.panes[paneID]
	if !ok {
		return tmux.ErrNoPane
	}
	fn(p)
	return nil
}

// SetScreen replaces the pane's visible text.
func (f *Fake) SetScreen(paneID, text string) error {
	return f.Do(paneID, func(p *FakePane) { p.SetScreen(text) })
}

// Exit ends the pane's program with code.
func (f *Fake) Exit(paneID string, code int) error {
	return f.Do(paneID, func(p *FakePane) { p.Exit(code) })
}

// Get returns a copy of the pane as it is now.
func (f *Fake) Get(paneID string) (FakePane, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.panes[paneID]
	if !ok {
		return FakePane{}, false
	}
	return p.clone(), true
}

// PaneIDs lists the pane IDs in creation order.
func (f *Fake) PaneIDs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]string, 0, len(f.panes))
	for id := range f.panes {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := 0, 0
		fmt.Sscanf(ids[i], "%%%d", &a)
		fmt.Sscanf(ids[j], "%%%d", &b)
		return a < b
	})
	return ids
}

// Pastes returns the texts pasted into the pane, in order.
func (f *Fake) Pastes(paneID string) []string {
	p, _ := f.Get(paneID)
	return p.Pastes
}

// Keys returns the keys sent to the pane, in order.
func (f *Fake) Keys(paneID string) []string {
	p, _ := f.Get(paneID)
	return p.Keys
}

// Inputs returns every paste and key sent to any pane, in order.
func (f *Fake) Inputs() []Input {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Input(nil), f.inputs...)
}

// KilledSessions lists the sessions KillSessionIfEmpty removed.
func (f *Fake) KilledSessions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.sessions...)
}

// Alive reports whether pid is the program of a live pane.
func (f *Fake) Alive(pid int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.panes {
		if p.PID == pid && !p.Dead {
			return true
		}
	}
	return false
}

// KillPID ends the live pane whose program is pid with status (143 for SIGTERM, as shells
// report it), the way killing the process group would. It reports whether anything ran.
func (f *Fake) KillPID(pid, status int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.panes {
		if p.PID == pid && !p.Dead {
			p.Exit(status)
			return true
		}
	}
	return false
}
