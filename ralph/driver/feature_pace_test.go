package driver

import (
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

// paceDriver is the driver as the pace feature meets it: the loop's directory, a clock, the
// state it updates.
type paceDriver struct {
	signalDriver
	now   time.Time
	state ralph.State
}

func (f *paceDriver) clock() Clock                       { return fixedClock{&f.now} }
func (f *paceDriver) update(fn func(*ralph.State) error) { _ = fn(&f.state) }

// The figures the iteration's agent told are kept, and with a headroom reached the loop parks
// before the next iteration until the reset; figures of another agent (another token) are not
// taken.
func TestPaceParksAtTheHeadroom(t *testing.T) {
	now := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	f := &paceDriver{signalDriver: signalDriver{d: ralph.Dir{Path: t.TempDir()}}, now: now}
	p := &pace{drv: f}
	write(t, f.d.PaceFile(), `{"five_hour":{"used_percent":91,"resets_at":"2026-11-29T03:00:00Z"},"seen":"2026-11-29T00:59:00Z","token":"other"}`)
	st := &ralph.State{CurrentIteration: 2, Unattended: ralph.Unattended{LimitHeadroom: 10}, AgentTokenSum: ralph.TokenSum("k1")}
	if _, park := p.beforeStart(st); park || st.RateLimits != nil {
		t.Fatalf("another agent's figures taken: %+v", st.RateLimits)
	}
	write(t, f.d.PaceFile(), `{"five_hour":{"used_percent":91,"resets_at":"2026-11-29T03:00:00Z"},"seen":"2026-11-29T00:59:00Z","token":"k1"}`)
	dec, park := p.beforeStart(st)
	if !park || dec.Status != ralph.StatusWaiting || f.state.RateLimits == nil || f.state.RateLimits.FiveHour.UsedPercent != 91 {
		t.Fatalf("not parked: %+v, state %+v", dec, f.state.RateLimits)
	}
	st.LimitHeadroom = 5
	if _, park := p.beforeStart(st); park {
		t.Error("parked below the headroom")
	}
}
