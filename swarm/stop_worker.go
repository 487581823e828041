package swarm

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

// stopWorker ends a worker's whole process group (SIGTERM, grace, SIGKILL), keeps its last
// screen, removes its window and records it as stopped with its exit code when one was
// observed. Other workers' windows, dead or alive, are left alone. The worker is ended even
// when the record cannot be written; the error says so.
func stopWorker(e *env, w *state.Worker, grace time.Duration) error {
	var exit *int
	if p, ok := e.ownPane(w); ok {
		if !p.Dead {
			// A loop's agent under a host first, with its grace; then the pane's process.
			if agent := e.paneAgent(w, p); agent != p.PID {
				e.procs.KillGroup(agent, grace)
			}
			e.procs.KillGroup(p.PID, grace)
		}
		p2, _ := e.ownPane(w)
		exit = e.exitCode(w.Name, p2)
		e.keepScreen(w)
		_ = e.tmuxFor(w).KillPane(w.Tmux.PaneID)
	} else {
		forced := w.Tmux == nil && e.procs.Alive(w.PID, pidStart(w)) && e.procs.KillGroup(w.PID, grace)
		exit = e.exitCode(w.Name, tmux.Pane{})
		if exit == nil && forced {
			// SIGKILL took the wrapper too, before it could record anything: say what a
			// shell would, every time.
			code := 128 + int(syscall.SIGKILL)
			_ = state.WriteFileAtomic(e.dir.ExitPath(w.Name), []byte(fmt.Sprintf("%d\n", code)), 0o600)
			exit = &code
		}
	}
	if w.Tmux != nil && exit == nil && e.serverSilent(w) {
		// Its pane cannot be reached: the processes carrying its identity are all there is
		// to end, and they are its own, not strays.
		e.warnf("ended '%s' by its processes; its tmux window stays until the server answers", w.Name)
		_ = e.procs.KillTagged(w.IDTag(), 0, grace)
	} else {
		e.endTagged(w, grace)
	}
	err := e.dir.UpdateWorkers(e.warnErr, func(ws *state.Workers) error {
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
		return fail("stopped '%s', but cannot record it: %w", w.Name, err)
	}
	return nil
}

// serverSilent reports whether the tmux server w lives on does not answer.
func (e *env) serverSilent(w *state.Worker) bool {
	_, err := e.tmuxFor(w).PaneNow(w.Tmux.PaneID)
	return errors.Is(err, tmux.ErrNotAnswering)
}

// keepScreen saves what the worker's pane shows (with its scrollback), so peek and logs can
// still show it after the pane is gone.
func (e *env) keepScreen(w *state.Worker) {
	out, err := e.tmuxFor(w).Capture(w.Tmux.PaneID, 2000)
	if err != nil {
		return
	}
	text := strings.Join(paneOutput(out), "\n")
	_ = state.WriteFileAtomic(e.dir.ScreenPath(w.Name), []byte(text+"\n"), 0o600)
}

// keptScreen is the screen saved when the worker ended, if any.
func (e *env) keptScreen(name string) ([]string, bool) {
	data, err := os.ReadFile(e.dir.ScreenPath(name))
	if err != nil {
		return nil, false
	}
	return screen.TrimBlankTail(splitLines(string(data))), true
}

// endTagged ends what the worker left outside its window or process group: processes that
// carry its identity (setsid grandchildren, an agent whose window was killed).
func (e *env) endTagged(w *state.Worker, grace time.Duration) {
	if w.ID == "" {
		return
	}
	if n := e.procs.KillTagged(w.IDTag(), 0, grace); n > 0 {
		e.warnf("ended %d process(es) of '%s' that ran outside its window or process group", n, w.Name)
	}
}
