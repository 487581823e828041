package tmux

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnquotable means a command holds an argument a control-mode command line cannot carry
// (a single quote or a line break); a tmux process takes such commands instead.
var ErrUnquotable = errors.New("an argument cannot be put on a tmux command line")

// Respawn is Exec.Respawn through the control client: a loop restarts its agent at every
// iteration, and on a busy machine a tmux process each time costs tens of milliseconds.
func (c *Control) Respawn(paneID string, s Spec) (Pane, error) {
	if !validTarget(paneID) {
		return Pane{}, fmt.Errorf("invalid pane %q", paneID)
	}
	respawn := append([]string{"-k", "-t", paneID}, specArgs(s)...)
	line, ok := commandLine("respawn-pane", append(append(respawn, "--"), s.Argv...)...)
	setID, idOK := commandLine("set-option", "-p", "-t", paneID, "@swarm_id", s.ID)
	if !ok || !idOK {
		return Pane{}, ErrUnquotable
	}
	if s.ClearHistory {
		if _, err := c.run("clear-history -t " + paneID); err != nil {
			return Pane{}, err
		}
	}
	if _, err := c.run(line); err != nil {
		return Pane{}, err
	}
	p, err := c.Pane(paneID)
	if err != nil || s.ID == "" || p.SwarmID == s.ID {
		return p, err
	}
	if _, err := c.run(setID); err != nil {
		return Pane{}, err
	}
	p.SwarmID = s.ID
	return p, nil
}

// commandLine is a tmux command with every argument in single quotes, between which tmux's
// parser takes everything as it is ($, ~, #, ;, braces, backslashes). Only a single quote
// itself, or a line break (the end of a control-mode command), cannot be carried: ok is false.
func commandLine(name string, args ...string) (string, bool) {
	var b strings.Builder
	b.WriteString(name)
	for _, a := range args {
		if strings.ContainsAny(a, "'\r\n") {
			return "", false
		}
		b.WriteString(" '" + a + "'")
	}
	return b.String(), true
}
