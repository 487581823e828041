package regent

import "github.com/swarm-dev/swarm/ralph"

// Which loops are the Regent's: what a command asks before it starts or wakes the Regent, and
// what the Regent asks of every loop on disk, decided by the same rules on both sides.

// NeedsMonitor reports whether the loop, as it is on disk, needs a monitor (see
// needsMonitor).
func NeedsMonitor(ld ralph.Dir) bool {
	st, err := ld.Load()
	return err == nil && needsMonitor(ld, st)
}

// needsMonitor: the loop in state st is running, waiting, between the loops of its
// sequence, or paused while the iteration it was paused in still runs (its agent is watched
// until it ends).
func needsMonitor(ld ralph.Dir, st *ralph.State) bool {
	return st.Status == ralph.StatusRunning || st.Status == ralph.StatusWaiting || ld.SequencePending(st) ||
		st.Status == ralph.StatusPaused && st.Phase.Underway()
}

// NeedsRegent reports whether the loop is the Regent's to drive now: supervised and in need
// of a monitor.
func NeedsRegent(ld ralph.Dir) bool {
	st, err := ld.Load()
	return err == nil && Drives(ld, st)
}

// Drives is NeedsRegent for a loop whose state st is already read.
func Drives(ld ralph.Dir, st *ralph.State) bool {
	return ralph.EffectiveSupervision(st.Supervision).Enabled && needsMonitor(ld, st)
}
