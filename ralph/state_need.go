package ralph

import (
	"strings"
	"time"
)

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

// personAnswer is a person's answer to the need, as its event tells it.
type personAnswer struct {
	by     string // where it was given: cli or web
	answer string // yes or no, and a refusal's message
}

// PermissionAnsweredBy forgets the permission the agent asked for, answered by a person from
// by (cli or web) with answer ("yes", "no" or "no: MESSAGE"): the change that records it
// tells that answer, once, as the need's (see needEvent). ok is false when the agent asks for
// no permission.
func (st *State) PermissionAnsweredBy(by, answer string) (ok bool) {
	if st.NeedsPermission == "" {
		return false
	}
	st.answered = &personAnswer{by: by, answer: answer}
	st.PermissionAnswered()
	return true
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

// Need is what a loop's agent waits for a person for, as every view says it.
type Need struct {
	Kind  string    // NeedPermission, NeedDangerous, NeedDialog or NeedUnknownScreen
	What  string    // the tool asked for, or the dialog's name; "" for an unknown screen
	Since time.Time // when the loop came to need a person; zero when not recorded
}

// The kinds of need.
const (
	NeedPermission    = "permission"
	NeedDangerous     = "dangerous command" // a permission asked though permissions are skipped (dangerous.go)
	NeedDialog        = "dialog"
	NeedUnknownScreen = "unknown screen"
)

// Words are the need in a few words: "permission: Bash(rm -rf build)", "dialog: trust-folder",
// "unknown screen". What comes from the agent: a view escapes it before showing it.
func (n Need) Words() string {
	if n.What == "" {
		return n.Kind
	}
	return n.Kind + ": " + n.What
}

// PersonNeed is what the agent of a running loop waits for a person for; ok is false when it
// needs none, or the loop does not run (a paused or ended loop's agent waits for no one).
func (st *State) PersonNeed() (n Need, ok bool) {
	if st.Status != StatusRunning {
		return Need{}, false
	}
	return st.need()
}

// need is what the agent waits for a person for, whatever the loop's status.
func (st *State) need() (n Need, ok bool) {
	switch {
	case st.NeedsPermission != "":
		// "Claude needs your permission to use Bash(rm -rf build)": the tool is what matters.
		n = Need{Kind: NeedPermission, What: PermissionWhat(st.NeedsPermission)}
		if what, ok := strings.CutSuffix(n.What, dangerousMark); ok {
			n = Need{Kind: NeedDangerous, What: what}
		}
	case st.BlockedBy != "":
		n = Need{Kind: NeedDialog, What: st.BlockedBy}
	case st.UnknownScreen != "":
		n = Need{Kind: NeedUnknownScreen}
	default:
		return Need{}, false
	}
	n.Since = ParseTime(st.NeedsPersonSince)
	return n, true
}

// PermissionWhat is what a permission asked for names: "Claude needs your permission to use
// Bash(rm -rf build)" is about Bash(rm -rf build), the tool being what matters.
func PermissionWhat(asked string) string {
	if _, tool, found := strings.Cut(asked, "permission to use "); found && strings.TrimSpace(tool) != "" {
		return strings.TrimSpace(tool)
	}
	return asked
}
