package swarm

import (
	"encoding/json"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
)

// The recorder of an agent's own signals: Claude Code runs it from the hooks of the settings
// file a loop gives it (the event as JSON on stdin), Codex as its notify program (the event as
// JSON, its last argument). It appends one line to the loop's events file and says nothing:
// whatever a hook prints may reach the model, and a hook that fails may stop the agent.

func agentEventCommand() *cli.Command {
	return &cli.Command{
		Name:   "agent-event",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "agent", Value: "claude", Usage: "claude (the event on stdin) or codex (the event as the last argument)"},
			&cli.StringFlag{Name: "file", Required: true, Usage: "the loop's events file"},
		},
		Action: func(c *cli.Context) error {
			recordAgentEvent(c.String("agent"), c.String("file"), c.Args().Slice(), os.Stdin)
			return nil
		},
	}
}

// maxEventInput bounds what is read of an event (a hook's input holds the agent's last answer).
const maxEventInput = 1 << 20

// maxEventMessage bounds what is kept of the agent's message: enough for a done marker at the
// end of a long answer, and for an error's text.
const maxEventMessage = 16 << 10

// recordAgentEvent appends the event to file; an event it cannot read is dropped.
func recordAgentEvent(agent, file string, args []string, stdin io.Reader) {
	var raw []byte
	if agent == "codex" {
		if len(args) == 0 {
			return
		}
		raw = []byte(args[len(args)-1])
	} else {
		raw, _ = io.ReadAll(io.LimitReader(stdin, maxEventInput))
	}
	e, ok := ralph.ParseAgentEvent(agent, raw, time.Now())
	if !ok {
		return
	}
	if e.Message = ralph.OneLine(e.Message); len(e.Message) > maxEventMessage {
		e.Message = e.Message[len(e.Message)-maxEventMessage:] // the end, where a marker is
	}
	line, err := json.Marshal(e)
	if err != nil {
		return
	}
	line = append(line, '\n')
	// No directory is made: a loop that is gone has nobody to read it. One write with
	// O_APPEND: lines of hooks that run at once never interleave.
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(line)
}
