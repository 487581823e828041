package swarm

import "github.com/swarm-dev/swarm/ralph"

// foregroundExit is the exit code of a loop run in this terminal (ralph spawn --foreground,
// ralph run, agent --foreground) once its monitor has let go of it: st is the loop's state
// then, am its agent mode (nil for a plain loop). Scripts read these codes: the guide
// swarm/guide/exit-codes.md lists them.
func foregroundExit(st *ralph.State, am *ralph.AgentMode) int {
	if st.Status == ralph.StatusPaused {
		// Ctrl-C, SIGTERM or swarm ralph pause: the loop can go on, but it has not ended.
		return ExitInterrupted
	}
	if am != nil && st.Status == ralph.StatusStopped && am.Session.SpecsFailed > 0 {
		// The inbox ran dry or a limit was reached, but not every spec the session took was
		// committed.
		return ExitError
	}
	switch ralph.OutcomeOf(st) {
	case ralph.OutcomeFailure:
		return ExitError
	case ralph.OutcomeStagnated:
		return ExitStagnated
	}
	return ExitOK
}
