package driver

import (
	"fmt"
	"strings"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
)

// A permission asked though permissions are skipped (see ralph/dangerous.go), refused by the
// loop itself when its setting says no: through swarm's hook when it holds the request (the
// answer file `swarm answer` writes), else by the dialog's keys when it shows.

// refuseDangerous answers e no as the loop's setting asks, and records the answer as the
// loop's own; it reports whether the answer reached the agent.
func (sg *signalWatch) refuseDangerous(st *ralph.State, a agent, e ralph.AgentEvent) bool {
	now := sg.drv.clock().Now()
	a0 := ralph.DangerousRefusal
	through := ""
	if req, ok := ralph.HeldIn(sg.drv.dir().AgentBox(), now); ok {
		if ralph.WriteAnswer(sg.drv.dir().AgentBox(), req.ID, a0) == nil {
			through = "its permission hook"
		}
	} else if lines, err := sg.drv.capture(a, 0); err == nil {
		shown := screen.Classify(strings.Join(lines, "\n"), nil)
		if keys, ok := screen.PermissionKeys(shown, false); ok && sg.drv.pressKeys(a, keys...) == nil {
			through = "the dialog's keys"
		}
	}
	if through == "" {
		return false
	}
	sg.drv.update(func(s *ralph.State) error {
		s.PermissionAnsweredBy(ralph.AnsweredBySwarm, ralph.AnswerWords(a0))
		return nil
	})
	sg.drv.say("refused (--on-dangerous no), through %s: %s", through, ralph.PermissionWhat(e.Message))
	sg.drv.logEvent("PERMISSION", fmt.Sprintf("iteration %d refused by the loop's setting (--on-dangerous no)", st.CurrentIteration))
	return true
}
