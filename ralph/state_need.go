package ralph

import "time"

// A loop that needs a person: its agent sits at a dialog the prompt is never typed into
// (BlockedBy), waits for a permission (NeedsPermission), or never got ready on a screen swarm
// does not know (UnknownScreen). When that began is recorded as it is seen (NeedsPersonSince)
// and kept while the loop goes on needing one, across its agent's restarts: the person needed
// at 02:00 is still needed at 08:00, though every iteration since met the same dialog.

// WaitsAtDialog records that the agent waits at the dialog named so, seen at now.
func (st *State) WaitsAtDialog(dialog string, now time.Time) {
	st.BlockedBy = dialog
	st.personNeeded(now)
}

// WaitsForPermission records that the agent asks permission for what, seen at now.
func (st *State) WaitsForPermission(what string, now time.Time) {
	st.NeedsPermission = what
	st.personNeeded(now)
}

// ShowsUnknownScreen records that the agent never got ready on a screen swarm does not know,
// kept at path, seen at now.
func (st *State) ShowsUnknownScreen(path string, now time.Time) {
	st.UnknownScreen = path
	st.personNeeded(now)
}

// PermissionAnswered forgets the permission the agent asked for: it went on, or its iteration
// ended.
func (st *State) PermissionAnswered() {
	st.NeedsPermission = ""
	st.personMayGo()
}

// AgentReady records that the agent showed its input prompt: no dialog and no unknown screen
// is in its way any more.
func (st *State) AgentReady() {
	st.BlockedBy, st.UnknownScreen = "", ""
	st.personMayGo()
}

// personNeeded stamps when the loop came to need a person, unless it needed one already.
func (st *State) personNeeded(now time.Time) {
	if st.NeedsPersonSince == "" {
		st.NeedsPersonSince = now.Format(TimeFormat)
	}
}

// personMayGo forgets when the loop came to need a person once it needs none.
func (st *State) personMayGo() {
	if st.BlockedBy == "" && st.NeedsPermission == "" && st.UnknownScreen == "" {
		st.NeedsPersonSince = ""
	}
}

// needEndsWith forgets when the loop came to need a person once a decision ends or pauses it:
// whoever resumes it is the person it needed, and a need met again is a new one.
func (st *State) needEndsWith(dec Decision) {
	if dec.Ended || dec.PausedNow {
		st.NeedsPersonSince = ""
	}
}
