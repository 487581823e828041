package swarm

import (
	"fmt"
	"io"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/inbox"
	"github.com/swarm-dev/swarm/ralph/words"
)

// agentView is an agent-mode worker as ralph status shows it: its state, and its project's
// inbox as it is now.
type agentView struct {
	*ralph.AgentMode
	Inbox      map[string]int `json:"inbox"`
	InboxError string         `json:"inbox_error,omitempty"`
}

func viewAgent(ld ralph.Dir) *agentView {
	am, err := ld.LoadAgentMode()
	if err != nil || am == nil {
		return nil
	}
	recs, err := inbox.Inbox{Root: am.Project}.Load()
	v := &agentView{AgentMode: am, Inbox: inbox.Counts(recs)}
	if err != nil {
		v.InboxError = err.Error()
	}
	return v
}

// printAgentStatus is the agent block that heads a worker's status in agent mode.
func printAgentStatus(out io.Writer, v *agentView, st *ralph.State, now time.Time) {
	fmt.Fprintln(out, "Mode: agent")
	switch {
	case v.Stage != "":
		fmt.Fprintf(out, "Current spec: %s (%s)\n", v.Spec, v.SpecID)
		fmt.Fprintf(out, "Stage: %s\n", v.Stage)
	case v.StopReason != "":
		fmt.Fprintf(out, "Current spec: none (agent stopped: %s)\n", v.StopReason)
	default:
		fmt.Fprintf(out, "Current spec: none (agent stopped: %s)\n", st.ExitReason)
	}
	if v.InboxError != "" {
		fmt.Fprintf(out, "Inbox: %s\n", v.InboxError)
	} else if v.Shared != nil {
		fmt.Fprintf(out, "Inbox (this clone): %d pending, %d active, %d done, %d failed\n",
			v.Inbox[inbox.Pending], v.Inbox[inbox.Active], v.Inbox[inbox.Done], v.Inbox[inbox.Failed])
	} else {
		fmt.Fprintf(out, "Inbox: %d pending, %d active, %d done, %d failed\n",
			v.Inbox[inbox.Pending], v.Inbox[inbox.Active], v.Inbox[inbox.Done], v.Inbox[inbox.Failed])
	}
	if sh := v.Shared; sh != nil {
		landing := ralph.SpecBranch("ID")
		if sh.LandOn != "" {
			landing = sh.LandOn + " (else " + landing + ")"
		}
		fmt.Fprintf(out, "Shared: claims on %s as %s/%s, --claim-timeout %s, finished specs to %s\n",
			sh.Remote, sh.Host, v.Session.Worker, sh.Timeout(), landing)
	}
	if t := ralph.ParseTime(st.Ended); v.Stage == "" && !t.IsZero() {
		now = t
	}
	fmt.Fprintf(out, "Session: %s completed, $%.2f spent, %s elapsed\n",
		words.Plural(v.Session.SpecsCompleted, "spec"), v.CostBase+st.CostUSD, v.Elapsed(now))
	fmt.Fprintf(out, "Agent log: %s\n\n", homeRelative(v.Log))
}
