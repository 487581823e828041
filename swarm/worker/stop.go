package worker

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/tmux"
)

// Stop ends a worker's whole process group (SIGTERM, grace, SIGKILL), keeps its last
// screen, removes its window and records it as stopped with its exit code when one was
// observed. Other workers' windows, dead or alive, are left alone. The worker is ended even
// when the record cannot be written; the error says so.
func (m *Machine) Stop(w *state.Worker, grace time.Duration) error {
	return m.StopAll([]*state.Worker{w}, grace)[0]
}

// StopAll is Stop of many workers, ended together: every process group is sent SIGTERM
// first, then all are waited for within the one grace, and the records are written once. A
// hundred workers take about as long as the slowest of them, not the sum. It returns each
// worker's error.
func (m *Machine) StopAll(ws []*state.Worker, grace time.Duration) []error {
	if len(ws) == 0 {
		return nil
	}
	stops := make([]stopping, len(ws))
	for i, w := range ws {
		stops[i] = stopping{w: w}
		stops[i].pane, stops[i].inPane = m.OwnPane(w)
	}
	m.signalAll(stops, grace)
	for i := range stops {
		m.collect(&stops[i])
	}
	m.endTaggedAll(stops, grace)
	return m.recordStopped(stops)
}

// stopping is one worker being stopped, as StopAll learns about it.
type stopping struct {
	w      *state.Worker
	pane   tmux.Pane // its own pane, when inPane
	inPane bool
	alive  bool // it ran when the stop came (else the stop only records that it ended)
	forced bool // its process group (a process worker's) had to be SIGKILLed
	exit   *int
}

// signalAll ends the workers' process groups: first the agents a loop's pane shell started in
// its pane (so the pane shell can still record how its agent ended), then the panes' own
// processes and the process workers, each round all at once within the one grace.
func (m *Machine) signalAll(stops []stopping, grace time.Duration) {
	var agents, groups []int
	var processes []int // indices of the process workers, in the order of their groups
	for i, s := range stops {
		switch {
		case s.inPane && !s.pane.Dead:
			stops[i].alive = true
			if agent := m.paneAgent(s.w, s.pane); agent != s.pane.PID {
				agents = append(agents, agent)
			}
			groups = append(groups, s.pane.PID)
		case !s.inPane && s.w.Tmux == nil && m.procs.Alive(s.w.PID, pidStart(s.w)):
			stops[i].alive = true
			processes = append(processes, i)
		}
	}
	m.procs.KillGroups(agents, grace)
	first := len(groups)
	for _, i := range processes {
		groups = append(groups, stops[i].w.PID)
	}
	forced := m.procs.KillGroups(groups, grace)
	for j, i := range processes {
		stops[i].forced = forced[first+j]
	}
}

// collect takes a stopped worker's exit code, keeps its last screen and removes its pane.
func (m *Machine) collect(s *stopping) {
	w := s.w
	if s.inPane {
		p2, _ := m.OwnPane(w)
		s.exit = m.ExitCode(w.Name, p2)
		m.keepScreen(w)
		_ = m.TmuxFor(w).KillPane(w.Tmux.PaneID)
		return
	}
	s.exit = m.ExitCode(w.Name, tmux.Pane{})
	if s.exit == nil && s.forced {
		// SIGKILL took the wrapper too, before it could record anything: say what a shell
		// would, every time.
		code := 128 + int(syscall.SIGKILL)
		_ = state.WriteFileAtomic(m.dir.ExitPath(w.Name), []byte(fmt.Sprintf("%d\n", code)), 0o600)
		s.exit = &code
	}
}

// recordStopped records the workers as stopped, with their exit codes where known, in one
// write of the records.
func (m *Machine) recordStopped(stops []stopping) []error {
	var ended []stopping // the records this stop turned stopped: their ends are its to tell
	err := m.dir.UpdateWorkers(m.warnErr, func(ws *state.Workers) error {
		ended = ended[:0]
		for _, s := range stops {
			if cur := ws.Get(s.w.Name); cur != nil {
				if cur.Status != state.StatusStopped {
					ended = append(ended, s)
				}
				cur.Status = state.StatusStopped
				if s.exit != nil {
					cur.ExitCode = s.exit
				}
			}
		}
		return nil
	})
	errs := make([]error, len(stops))
	for i, s := range stops {
		s.w.Status = state.StatusStopped
		if s.exit != nil {
			s.w.ExitCode = s.exit
		}
		if err != nil {
			errs[i] = fmt.Errorf("stopped '%s', but cannot record it: %w", s.w.Name, err)
		}
	}
	if err == nil {
		for _, s := range ended {
			how := EndedKilled
			if !s.alive {
				how = EndedExited
			}
			m.ended(s.w, how, "")
		}
	}
	return errs
}

// serverSilent reports whether the tmux server w lives on does not answer.
func (m *Machine) serverSilent(w *state.Worker) bool {
	_, err := m.TmuxFor(w).PaneNow(w.Tmux.PaneID)
	return errors.Is(err, tmux.ErrNotAnswering)
}

// keepScreen saves what the worker's pane shows (with its scrollback), so peek and logs can
// still show it after the pane is gone.
func (m *Machine) keepScreen(w *state.Worker) {
	out, err := m.TmuxFor(w).Capture(w.Tmux.PaneID, 2000)
	if err != nil {
		return
	}
	text := strings.Join(PaneOutput(out), "\n")
	_ = state.WriteFileAtomic(m.dir.ScreenPath(w.Name), []byte(text+"\n"), 0o600)
}

// KeptScreen is the screen saved when the worker ended, if any.
func (m *Machine) KeptScreen(name string) ([]string, bool) {
	data, err := os.ReadFile(m.dir.ScreenPath(name))
	if err != nil {
		return nil, false
	}
	return screen.TrimBlankTail(SplitLines(string(data))), true
}

// endTaggedAll ends what the workers left outside their windows or process groups: processes
// that carry their identity (setsid grandchildren, an agent whose window was killed), all of
// them at once. A worker whose tmux server does not answer, and whose exit is not known, is
// ended by these processes alone: they are all there is to end, and its own, not strays.
func (m *Machine) endTaggedAll(stops []stopping, grace time.Duration) {
	var tags []string
	var of []int
	silent := make([]bool, len(stops))
	for i, s := range stops {
		silent[i] = s.w.Tmux != nil && s.exit == nil && m.serverSilent(s.w)
		if silent[i] {
			m.Warnf("ended '%s' by its processes; its tmux window stays until the server answers", s.w.Name)
		} else if s.w.ID == "" {
			continue
		}
		tags, of = append(tags, s.w.IDTag()), append(of, i)
	}
	if len(tags) == 0 {
		return
	}
	for j, n := range m.procs.KillTaggedEach(tags, 0, grace) {
		i := of[j]
		if n > 0 {
			stops[i].alive = true
		}
		if n > 0 && !silent[i] {
			m.Warnf("ended %d process(es) of '%s' that ran outside its window or process group", n, stops[i].w.Name)
		}
	}
}

// endTagged ends what the worker left outside its window or process group: processes that
// carry its identity (setsid grandchildren, an agent whose window was killed).
func (m *Machine) endTagged(w *state.Worker, grace time.Duration) {
	if w.ID == "" {
		return
	}
	if n := m.procs.KillTagged(w.IDTag(), 0, grace); n > 0 {
		m.Warnf("ended %d process(es) of '%s' that ran outside its window or process group", n, w.Name)
	}
}
