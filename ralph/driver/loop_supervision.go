package driver

import (
	"os"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/tmux"
)

// Supervision's effects that are the driver's own: a monitor taken over or crashed, the Regent
// that keeps dying, and the agent's last lines that reports carry (the test gate is a feature,
// feature_gate.go). What to do is decided in ralph/supervision_policy.go.

// lastOutput returns the last n non-blank lines the agent showed: from the screen saved when
// the iteration ended, or else from the pane. tmux's own "Pane is dead" note is left out.
func (l *Loop) lastOutput(a agent, iteration, n int) []string {
	var lines []string
	if data, err := os.ReadFile(l.cfg.Dir.ScreenPath(iteration)); err == nil {
		lines = screen.Lines(string(data))
	} else if a.paneID != "" {
		lines, _ = l.view.capture(a, 0)
	}
	return lastN(nonBlank(lines), n)
}

// nonBlank leaves out blank lines and tmux's own "Pane is dead" note.
func nonBlank(lines []string) []string {
	out := []string{}
	for _, ln := range lines {
		if strings.TrimSpace(ln) == "" || tmux.IsDeadNote(ln) {
			continue
		}
		out = append(out, ln)
	}
	return out
}

func lastN(lines []string, n int) []string {
	if len(lines) > n {
		return append([]string{}, lines[len(lines)-n:]...)
	}
	return append([]string{}, lines...)
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
