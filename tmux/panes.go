package tmux

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Fields are joined with "|", which tmux prints as is (it rewrites tabs) and which swarm never
// allows in session or window names.
const paneFormat = "#{pane_id}|#{pane_pid}|#{pane_dead}|#{pane_dead_status}|#{session_name}|#{window_index}|#{window_name}|#{pane_dead_signal}|#{@swarm_id}|#{window_activity}"

func parsePane(line string) (Pane, bool) {
	f := strings.Split(strings.TrimRight(line, "\r\n"), "|")
	if len(f) < 7 || !strings.HasPrefix(f[0], "%") {
		return Pane{}, false
	}
	p := Pane{ID: f[0], Dead: f[2] == "1", Session: f[4], WindowIdx: f[5], WindowName: f[6]}
	p.PID, _ = strconv.Atoi(f[1])
	if p.Dead && f[3] != "" {
		if n, err := strconv.Atoi(f[3]); err == nil {
			p.ExitStatus, p.HasStatus = n, true
		}
	}
	if len(f) > 8 {
		p.SwarmID = f[8]
	}
	if len(f) > 9 {
		if secs, err := strconv.ParseInt(f[9], 10, 64); err == nil && secs > 0 {
			p.Activity = time.Unix(secs, 0)
		}
	}
	if p.Dead && !p.HasStatus && len(f) > 7 && f[7] != "" {
		// Killed by a signal: report it the way shells do.
		if n, err := strconv.Atoi(f[7]); err == nil {
			p.ExitStatus, p.HasStatus = 128+n, true
		}
	}
	return p, true
}

func specArgs(s Spec) []string {
	var args []string
	if s.Cwd != "" {
		args = append(args, "-c", s.Cwd)
	}
	for _, kv := range s.Env {
		args = append(args, "-e", kv)
	}
	return args
}

// NewWindow starts s.Argv in a new window of s.Session, creating the session when needed.
func (t *Exec) NewWindow(s Spec) (Pane, error) {
	if len(s.Argv) == 0 {
		return Pane{}, errors.New("no command to run")
	}
	w, h := s.Width, s.Height
	if w <= 0 {
		w = 200
	}
	if h <= 0 {
		h = 50
	}
	var lastErr error
	// Two spawns may race to create the same session; the loser retries with new-window.
	for attempt := 0; attempt < 4; attempt++ {
		var args []string
		if has, err := t.hasSession(s.Session); err != nil {
			return Pane{}, err
		} else if has {
			args = append([]string{"new-window", "-d", "-t", "=" + s.Session + ":", "-n", s.Window, "-P", "-F", paneFormat}, specArgs(s)...)
		} else {
			args = append([]string{"new-session", "-d", "-s", s.Session, "-n", s.Window,
				"-x", strconv.Itoa(w), "-y", strconv.Itoa(h), "-P", "-F", paneFormat}, specArgs(s)...)
		}
		args = append(append(args, "--"), s.Argv...)
		out, err := t.run(nil, args...)
		if err == nil {
			p, ok := parsePane(out)
			if !ok {
				return Pane{}, fmt.Errorf("tmux: unexpected answer %q", out)
			}
			return t.identify(p, s.ID)
		}
		lastErr = err
		msg := err.Error()
		if strings.Contains(msg, "duplicate session") || strings.Contains(msg, "can't find session") || errors.Is(err, ErrNoServer) {
			continue
		}
		return Pane{}, err
	}
	return Pane{}, lastErr
}

func (t *Exec) hasSession(name string) (bool, error) {
	_, err := t.run(nil, "has-session", "-t", "="+name)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, ErrNotInstalled) {
		return false, err
	}
	if errors.Is(err, ErrNoServer) || strings.Contains(err.Error(), "can't find session") {
		return false, nil
	}
	return false, err
}

// Respawn starts s.Argv again in an existing pane, keeping its pane ID, and returns the pane
// as it is then. One tmux client does it all (clearing the scrollback when asked, respawning,
// listing): a loop restarts its agent often, and each client is a process.
func (t *Exec) Respawn(paneID string, s Spec) (Pane, error) {
	respawn := append([]string{"respawn-pane", "-k", "-t", paneID}, specArgs(s)...)
	respawn = append(append(respawn, "--"), s.Argv...)
	cmds := [][]string{respawn, {"list-panes", "-t", paneID, "-F", paneFormat}}
	if s.ClearHistory {
		cmds = append([][]string{{"clear-history", "-t", paneID}}, cmds...)
	}
	out, err := t.runSeq(nil, cmds...)
	if err != nil {
		return Pane{}, err
	}
	p, ok := findPane(out, paneID)
	if !ok {
		return Pane{}, ErrNoPane
	}
	if s.ID == "" || p.SwarmID == s.ID {
		return p, nil
	}
	return t.identify(p, s.ID)
}

// identify stores the worker's identity on its pane.
func (t *Exec) identify(p Pane, id string) (Pane, error) {
	if id == "" {
		return p, nil
	}
	if _, err := t.run(nil, "set-option", "-p", "-t", p.ID, "@swarm_id", id); err != nil {
		return Pane{}, err
	}
	p.SwarmID = id
	return p, nil
}

// settling reports a pane whose program has ended (its terminal closed) but whose exit status
// tmux has not collected yet; it is asked again shortly so the exit code is not lost.
func settling(p Pane) bool { return p.Dead && !p.HasStatus }

// Panes lists every pane on the server, keyed by pane ID; no server means no panes.
func (t *Exec) Panes() (map[string]Pane, error) {
	for i := 0; ; i++ {
		panes, err := t.listAll()
		if err != nil || i == 10 {
			return panes, err
		}
		wait := false
		for _, p := range panes {
			if settling(p) {
				wait = true
			}
		}
		if !wait {
			return panes, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (t *Exec) listAll() (map[string]Pane, error) {
	out, err := t.run(nil, "list-panes", "-a", "-F", paneFormat)
	// Process workers do not need tmux at all; without it there simply are no panes.
	if errors.Is(err, ErrNoServer) || errors.Is(err, ErrNotInstalled) {
		return map[string]Pane{}, nil
	}
	if err != nil {
		return nil, err
	}
	panes := map[string]Pane{}
	for _, line := range strings.Split(out, "\n") {
		if p, ok := parsePane(line); ok {
			panes[p.ID] = p
		}
	}
	return panes, nil
}

// Pane returns one pane, or ErrNoPane.
func (t *Exec) Pane(paneID string) (Pane, error) {
	for i := 0; ; i++ {
		p, err := t.pane(paneID)
		if err != nil || !settling(p) || i == 10 {
			return p, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// PaneNow returns one pane as tmux shows it now (see Client).
func (t *Exec) PaneNow(paneID string) (Pane, error) { return t.pane(paneID) }

func (t *Exec) pane(paneID string) (Pane, error) {
	// display-message answers for some other pane when the target is wrong, so list and match.
	out, err := t.run(nil, "list-panes", "-t", paneID, "-F", paneFormat)
	if errors.Is(err, ErrNoServer) || errors.Is(err, ErrNotInstalled) {
		return Pane{}, ErrNoPane
	}
	if err != nil {
		if strings.Contains(err.Error(), "can't find") {
			return Pane{}, ErrNoPane
		}
		return Pane{}, err
	}
	if p, ok := findPane(out, paneID); ok {
		return p, nil
	}
	return Pane{}, ErrNoPane
}

// findPane picks the pane paneID out of list-panes lines.
func findPane(out, paneID string) (Pane, bool) {
	for _, line := range strings.Split(out, "\n") {
		if p, ok := parsePane(line); ok && p.ID == paneID {
			return p, true
		}
	}
	return Pane{}, false
}

// KillPane removes the pane (and its window when it was the only pane).
func (t *Exec) KillPane(paneID string) error {
	_, err := t.run(nil, "kill-pane", "-t", paneID)
	if errors.Is(err, ErrNoServer) || errors.Is(err, ErrNoPane) {
		return nil
	}
	return err
}

// ReviveOnDeath makes tmux restart, after a one-second pause, the program of the pane's window
// whenever it dies: the server that hosts the agents also keeps their supervisors alive, with
// no other daemon. A program that ends on purpose removes its own pane first.
func (t *Exec) ReviveOnDeath(paneID string) error {
	_, err := t.run(nil, "set-hook", "-w", "-t", paneID, "pane-died", `run-shell -d 1 -C "respawn-pane -t #{hook_pane}"`)
	return err
}

// KillSessionIfEmpty removes a session that has no live panes left.
func (t *Exec) KillSessionIfEmpty(session string) error {
	out, err := t.run(nil, "list-panes", "-s", "-t", "="+session, "-F", "#{pane_dead}")
	if err != nil {
		return nil
	}
	for _, l := range strings.Fields(out) {
		if l != "1" {
			return nil
		}
	}
	_, err = t.run(nil, "kill-session", "-t", "="+session)
	if errors.Is(err, ErrNoServer) {
		return nil
	}
	return err
}
