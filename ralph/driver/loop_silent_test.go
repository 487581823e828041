package driver

import (
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/tmux"
)

// silentTmux is a tmux server that stops answering while silent is set, as one stopped with
// SIGSTOP does: every call fails with tmux.ErrNotAnswering.
type silentTmux struct {
	tmux.Client
	silent atomic.Bool
	// fallSilentAtStart: the server falls silent as the next agent is to be started in the
	// pane.
	fallSilentAtStart atomic.Bool
	newWindows        atomic.Int32
}

func (s *silentTmux) err() error {
	if s.silent.Load() {
		return &tmux.NotAnsweringError{Socket: s.Socket()}
	}
	return nil
}

func (s *silentTmux) atStart() error {
	if s.fallSilentAtStart.CompareAndSwap(true, false) {
		s.silent.Store(true)
	}
	return s.err()
}

func (s *silentTmux) Panes() (map[string]tmux.Pane, error) {
	if err := s.err(); err != nil {
		return nil, err
	}
	return s.Client.Panes()
}

func (s *silentTmux) Pane(id string) (tmux.Pane, error) {
	if err := s.err(); err != nil {
		return tmux.Pane{}, err
	}
	return s.Client.Pane(id)
}

func (s *silentTmux) PaneNow(id string) (tmux.Pane, error) {
	if err := s.err(); err != nil {
		return tmux.Pane{}, err
	}
	return s.Client.PaneNow(id)
}

func (s *silentTmux) Capture(id string, history int) (string, error) {
	if err := s.err(); err != nil {
		return "", err
	}
	return s.Client.Capture(id, history)
}

func (s *silentTmux) NewWindow(spec tmux.Spec) (tmux.Pane, error) {
	if err := s.err(); err != nil {
		return tmux.Pane{}, err
	}
	s.newWindows.Add(1)
	return s.Client.NewWindow(spec)
}

func (s *silentTmux) Respawn(id string, spec tmux.Spec) (tmux.Pane, error) {
	if err := s.atStart(); err != nil {
		return tmux.Pane{}, err
	}
	return s.Client.Respawn(id, spec)
}

// silentHarness is a loop of two iterations whose first agent records its exit code and
// ends on submit, running on a server that can fall silent.
func silentHarness(t *testing.T, fall func(s *silentTmux)) (*harness, *silentTmux, Config) {
	t.Helper()
	var s *silentTmux
	var h *harness
	h = newHarness(t, setup{max: 2}, agentScript{submit: func(tn turn) {
		if tn.it == 1 {
			if err := os.WriteFile(h.sd.ExitPath(loopName), []byte("0\n"), 0o600); err != nil {
				t.Error(err)
			}
			fall(s)
		}
		tn.p.Exit(0)
	}})
	s = &silentTmux{Client: h.fake}
	cfg := h.config()
	cfg.Tmux = s
	return h, s, cfg
}

// An agent that ends while the server is silent: its iteration counts as it ended (exit 0),
// the next one waits for the server, and starts once it answers.
func TestLoopWaitsForASilentServerToStartTheNextIteration(t *testing.T) {
	h, s, cfg := silentHarness(t, func(s *silentTmux) {
		s.silent.Store(true)
	})
	var back time.Time
	h.clock.After(5*time.Minute, func() { back = h.clock.Now(); s.silent.Store(false) })
	if code := h.run(cfg); code != 0 {
		t.Fatalf("Run = %d, want 0; output:\n%s", code, h.out.String())
	}
	h.wantState(h.state(), ralph.StatusStopped, "max_iterations", 2)
	starts := h.startRecs() // the first is iteration 1's, as the harness sets it up
	if len(starts) != 2 || starts[1].at.Before(back) {
		t.Errorf("agents started %+v; want iteration 2's once, after the server answered at %s", starts, back)
	}
	if n := s.newWindows.Load(); n != 0 {
		t.Errorf("%d new windows: the pane was there all along", n)
	}
	log := h.iterationsLog()
	for _, want := range []string{"[END] iteration 1 exit=0 ", "iteration 2 waits for the tmux server to start (at most 30m, then the loop fails)",
		"the tmux server answers again (after ", "[START] iteration 2/2"} {
		if strings.Count(log, want) != 1 {
			t.Errorf("iterations.log has %q %d times, want once:\n%s", want, strings.Count(log, want), log)
		}
	}
	if strings.Contains(log, "[FAIL]") {
		t.Errorf("a failure was recorded:\n%s", log)
	}
	if st := h.state(); st.TmuxSilentSince != "" || st.TotalFailures != 0 {
		t.Errorf("state: tmux_silent_since %q, total failures %d; want neither", st.TmuxSilentSince, st.TotalFailures)
	}
}

// A server that falls silent as the start asks for the pane: the outage is escalated, the
// start waits and is made once, when the server answers.
func TestLoopStartMeetingASilentServerWaits(t *testing.T) {
	h, s, cfg := silentHarness(t, func(s *silentTmux) {
		s.fallSilentAtStart.Store(true)
	})
	h.clock.After(3*time.Minute, func() { s.silent.Store(false) })
	if code := h.run(cfg); code != 0 {
		t.Fatalf("Run = %d, want 0; output:\n%s", code, h.out.String())
	}
	h.wantState(h.state(), ralph.StatusStopped, "max_iterations", 2)
	if n := len(h.startRecs()); n != 2 {
		t.Errorf("%d agents started, want iteration 1's and then 2's once", n)
	}
	log := h.iterationsLog()
	if !strings.Contains(log, "[ESCALATE] tmux server (socket "+s.Socket()+") is not answering — iteration 2 waits for the tmux server to start") {
		t.Errorf("no escalation of the outage:\n%s", log)
	}
}

// A server that never answers again: the loop fails once it has waited the limit, escalated,
// with the reason of its own.
func TestLoopGivesUpOnASilentServerAtTheLimit(t *testing.T) {
	h, s, cfg := silentHarness(t, func(s *silentTmux) {
		s.silent.Store(true)
	})
	began := h.clock.Now()
	if code := h.run(cfg); code != 1 {
		t.Fatalf("Run = %d, want 1 (failed); output:\n%s", code, h.out.String())
	}
	st := h.state()
	h.wantState(st, ralph.StatusFailed, ralph.ReasonTmuxSilent, 1)
	if waited := ralph.ParseTime(st.Ended).Sub(began); waited < ralph.TmuxOutageLimit || waited > ralph.TmuxOutageLimit+time.Minute {
		t.Errorf("gave up after %s, want the limit (%s)", waited, ralph.TmuxOutageLimit)
	}
	if n := len(h.startRecs()); n != 1 {
		t.Errorf("%d agents started, want iteration 1's alone", n)
	}
	log := h.iterationsLog()
	want := "[FAIL] tmux server (socket " + s.Socket() + ") is not answering for 30m: cannot start iteration 2, stopping loop"
	if !strings.Contains(log, want) {
		t.Errorf("iterations.log lacks %q:\n%s", want, log)
	}
}
