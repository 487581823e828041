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
	// Sent together, answered together; tmux runs them in order.
	cmds := []string{line, "list-panes -t " + paneID + " -F '" + paneFormat + "'"}
	if s.ClearHistory {
		cmds = append([]string{"clear-history -t " + paneID}, cmds...)
	}
	replies, err := c.runAll(cmds...)
	if err != nil {
		return Pane{}, err
	}
	for _, r := range replies {
		if r.err != nil {
			return Pane{}, r.err
		}
	}
	p, ok := findPane(replies[len(replies)-1].out, paneID)
	if !ok {
		return Pane{}, ErrNoPane
	}
	if s.ID == "" || p.SwarmID == s.ID {
		return p, nil
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
