package tmux

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnquotable means a command holds an argument a control-mode command line cannot carry (a
// NUL byte); a tmux process takes such commands instead.
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

// commandLine is a tmux command with every argument quoted so that tmux's parser takes it as
// it is ($, ~, #, ;, braces, backslashes: see quoteArg). Only a NUL byte, which ends a string
// inside tmux, cannot be carried: ok is false.
func commandLine(name string, args ...string) (string, bool) {
	var b strings.Builder
	b.WriteString(name)
	for _, a := range args {
		q, ok := quoteArg(a)
		if !ok {
			return "", false
		}
		b.WriteString(" " + q)
	}
	return b.String(), true
}

// quoteArg puts a in single quotes, between which tmux's parser takes everything as it is. The
// three characters that cannot be there go in double quotes, escaped, right beside: a single
// quote (which would end the quotes) and the line breaks (which end a control-mode command).
// tmux joins quoted pieces without space between them into one argument.
func quoteArg(a string) (string, bool) {
	if strings.IndexByte(a, 0) >= 0 {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(a) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(a); i++ {
		switch c := a[i]; c {
		case '\'':
			b.WriteString(`'"'"'`)
		case '\n':
			b.WriteString(`'"\n"'`)
		case '\r':
			b.WriteString(`'"\r"'`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String(), true
}
