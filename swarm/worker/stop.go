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
func (h *Host) Stop(w *state.Worker, grace time.Duration) error {
	var exit *int
	if p, ok := h.OwnPane(w); ok {
		if !p.Dead {
			// A loop's agent under a host first, with its grace; then the pane's process.
			if agent := h.paneAgent(w, p); agent != p.PID {
				h.procs.KillGroup(agent, grace)
			}
			h.procs.KillGroup(p.PID, grace)
		}
		p2, _ := h.OwnPane(w)
		exit = h.ExitCode(w.Name, p2)
		h.keepScreen(w)
		_ = h.TmuxFor(w).KillPane(w.Tmux.PaneID)
	} else {
		forced := w.Tmux == nil && h.procs.Alive(w.PID, pidStart(w)) && h.procs.KillGroup(w.PID, grace)
		exit = h.ExitCode(w.Name, tmux.Pane{})
		if exit == nil && forced {
			// SIGKILL took the wrapper too, before it could record anything: say what a
			// shell would, every time.
			code := 128 + int(syscall.SIGKILL)
			_ = state.WriteFileAtomic(h.dir.ExitPath(w.Name), []byte(fmt.Sprintf("%d\n", code)), 0o600)
			exit = &code
		}
	}
	if w.Tmux != nil && exit == nil && h.serverSilent(w) {
		// Its pane cannot be reached: the processes carrying its identity are all there is
		// to end, and they are its own, not strays.
		h.Warnf("ended '%s' by its processes; its tmux window stays until the server answers", w.Name)
		_ = h.procs.KillTagged(w.IDTag(), 0, grace)
	} else {
		h.endTagged(w, grace)
	}
	err := h.dir.UpdateWorkers(h.warnErr, func(ws *state.Workers) error {
		if cur := ws.Get(w.Name); cur != nil {
			cur.Status = state.StatusStopped
			if exit != nil {
				cur.ExitCode = exit
			}
		}
		return nil
	})
	w.Status = state.StatusStopped
	if exit != nil {
		w.ExitCode = exit
	}
	if err != nil {
		return fmt.Errorf("stopped '%s', but cannot record it: %w", w.Name, err)
	}
	return nil
}

// serverSilent reports whether the tmux server w lives on does not answer.
func (h *Host) serverSilent(w *state.Worker) bool {
	_, err := h.TmuxFor(w).PaneNow(w.Tmux.PaneID)
	return errors.Is(err, tmux.ErrNotAnswering)
}

// keepScreen saves what the worker's pane shows (with its scrollback), so peek and logs can
// still show it after the pane is gone.
func (h *Host) keepScreen(w *state.Worker) {
	out, err := h.TmuxFor(w).Capture(w.Tmux.PaneID, 2000)
	if err != nil {
		return
	}
	text := strings.Join(PaneOutput(out), "\n")
	_ = state.WriteFileAtomic(h.dir.ScreenPath(w.Name), []byte(text+"\n"), 0o600)
}

// KeptScreen is the screen saved when the worker ended, if any.
func (h *Host) KeptScreen(name string) ([]string, bool) {
	data, err := os.ReadFile(h.dir.ScreenPath(name))
	if err != nil {
		return nil, false
	}
	return screen.TrimBlankTail(SplitLines(string(data))), true
}

// endTagged ends what the worker left outside its window or process group: processes that
// carry its identity (setsid grandchildren, an agent whose window was killed).
func (h *Host) endTagged(w *state.Worker, grace time.Duration) {
	if w.ID == "" {
		return
	}
	if n := h.procs.KillTagged(w.IDTag(), 0, grace); n > 0 {
		h.Warnf("ended %d process(es) of '%s' that ran outside its window or process group", n, w.Name)
	}
}
