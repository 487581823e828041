package driver

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

// countingPiper counts how often a pane is piped (again).
type countingPiper struct{ pipes int }

func (p *countingPiper) PipeOutput(string, string) error { p.pipes++; return nil }
func (*countingPiper) StopOutput(string)                 {}

// The look that comes feedSafety after the last one, with nothing printed since, pipes the pane
// again only when the screen changed: output read just after the previous look re-dates the
// last change (see datedChange) without being a change the copier missed.
func TestSafetyLookPipesAgainOnlyForAChangedScreen(t *testing.T) {
	for _, tc := range []struct {
		name      string
		newScreen string
		wantPipes int
	}{
		{"still screen, output read just after the previous look", "> ", 0},
		{"screen changed with nothing copied", "> something new", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// An inactivity timeout longer than feedSafety: the look is about piping, not quiet.
			h := newHarness(t, setup{max: 3, phase: ralph.PhaseWorking, inactivity: 10 * int(feedSafety.Seconds())}, agentScript{})
			piper := &countingPiper{}
			cfg := h.config()
			cfg.Output = piper
			l := New(cfg)
			w, err := l.cfg.worker()
			if err != nil {
				t.Fatal(err)
			}
			pane := w.Tmux.PaneID
			if err := h.fake.SetScreen(pane, "> "); err != nil {
				t.Fatal(err)
			}
			feed, err := openFeed(filepath.Join(t.TempDir(), "output.fifo"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer feed.close()
			feed.pane, l.pane.feed = pane, feed
			st, err := h.dir.Load()
			if err != nil {
				t.Fatal(err)
			}
			a := l.view.now()
			ws := l.watcher.newScreenWatch(st)
			ws.feed = feed
			prev := h.clock.Now()
			ws.facts.Now, ws.facts.LastChange = prev, prev.Add(-time.Second)
			ws.lastHash, ws.lastSubst = "", ""
			// The previous look: it saw "> ".
			if l.watcher.lookAtScreen(st, &a, &ws) {
				t.Fatal("the first look ended the iteration")
			}
			ws.looked = prev
			// Output arrives 50 ms after it (it was on the screen that look saw), then nothing.
			feed.arrived()
			feed.last.Store(prev.Add(50 * time.Millisecond).UnixNano())
			ws.seen = feed.reads.Load()
			ws.prevLook = prev
			if err := h.fake.SetScreen(pane, tc.newScreen); err != nil {
				t.Fatal(err)
			}
			ws.facts.Now = prev.Add(feedSafety)
			var next watchTimes
			if l.watcher.screenFed(st, &a, &ws, &next) {
				t.Fatal("the safety look ended the iteration")
			}
			if piper.pipes != tc.wantPipes {
				t.Errorf("pane piped %d times; want %d", piper.pipes, tc.wantPipes)
			}
		})
	}
}
