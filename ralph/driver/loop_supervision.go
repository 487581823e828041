package driver

import (
	"os"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/tmux"
)

// Supervision's effects that are the driver's own: a monitor taken over or crashed, the Regent
// that keeps dying, and the agent's last lines that reports carry (the test gate is a feature,
// feature_gate.go). What to do is decided in ralph/supervision_policy.go.

// lastOutput is what a notification carries of the agent's screen as iteration left it (see
// screenTail): its last n lines above its input area.
func (l *Loop) lastOutput(a agent, iteration, n int) []string {
	return screenTail(leftScreen(&l.cfg, l.view, a, iteration), n)
}

// leftScreen is the agent's screen as iteration n left it: the one saved when it ended, or
// else the pane as it is now.
func leftScreen(cfg *Config, view *agentView, a agent, n int) []string {
	if data, err := os.ReadFile(cfg.Dir.ScreenPath(n)); err == nil {
		return screen.Lines(string(data))
	}
	if a.paneID != "" {
		lines, _ := view.capture(a, 0)
		return lines
	}
	return nil
}

// maxLineSent bounds each line of the agent's screen that a notification or a failure carries.
const maxLineSent = 200

// screenTail is what a report carries of a screen: its last n non-blank lines above the
// agent's input area (its input box and the footer under it tell nothing of what happened),
// tmux's own "Pane is dead" note left out, each made safe to show and at most maxLineSent
// characters: the screen is the agent's, and may hold anything.
func screenTail(lines []string, n int) []string {
	var kept []string
	for _, ln := range lines {
		if !tmux.IsDeadNote(ln) {
			kept = append(kept, ln)
		}
	}
	out := []string{}
	for _, ln := range screen.AboveInput(kept) {
		if ln = screen.Printable(ln, maxLineSent); ln != "" {
			out = append(out, ln)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

// Resurrected records that this monitor took over the loop from one (deadPID) that died, and
// reports whether the loop was given up because its monitor keeps dying.
func (l *Loop) Resurrected(deadPID int, mayGiveUp bool) (giveUp bool) {
	st, err := l.cfg.Dir.Load()
	if err != nil {
		return false
	}
	now := l.cfg.Clock.Now()
	var dec ralph.Decision
	l.rec.updateSupervision(func(rs *ralph.SupervisionState) {
		rs.Resurrections++
		var recent []time.Time
		for _, s := range rs.RecentResurrections {
			if t, err := time.Parse(time.RFC3339, s); err == nil {
				recent = append(recent, t)
			}
		}
		var keep []time.Time
		keep, dec = ralph.Resurrection(recent, now, deadPID, st.CurrentIteration, rs.Resurrections, mayGiveUp)
		rs.RecentResurrections = rs.RecentResurrections[:0]
		for _, t := range keep {
			rs.RecentResurrections = append(rs.RecentResurrections, t.UTC().Format(time.RFC3339))
		}
		rs.PID = os.Getpid()
	})
	l.transition(st, l.view.now(), dec)
	return dec.Stopping()
}

// Crashed fails a loop whose monitor hit a fault of its own (a panic in its goroutine): see
// MonitorCrashed. Only this loop is affected; a Regent drives the others on.
func (l *Loop) Crashed(fault string) {
	st, err := l.cfg.Dir.Load()
	if err != nil {
		return
	}
	l.transition(st, l.view.now(), ralph.MonitorCrashed(st.CurrentIteration, fault))
}

// RegentCrashLoop says loudly that the Regent keeps dying and no longer drives this loop: the
// loop is not failed and its agent is not ended (the fault is the daemon's), and the
// escalation goes where the loop's escalations go.
func (l *Loop) RegentCrashLoop(reason string) {
	st, err := l.cfg.Dir.Load()
	if err != nil {
		return
	}
	l.notify.announce(st, l.view.now(), ralph.Decision{Escalate: reason})
}
