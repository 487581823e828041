package swarm

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// The recorder of an agent's own signals: Claude Code runs it from the hooks of the settings
// file a loop gives it (the event as JSON on stdin), Codex as its notify program (the event as
// JSON, its last argument). It appends one line to the loop's events file and says nothing:
// whatever a hook prints may reach the model, and a hook that fails may stop the agent. The
// one thing it prints is a person's decision on a permission request it held (--hold).

func agentEventCommand() *cli.Command {
	return &cli.Command{
		Name:   "agent-event",
		Hidden: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "agent", Value: "claude", Usage: "claude, qwen, copilot, gemini or opencode (the event on stdin), or codex (the event as the last argument)"},
			&cli.StringFlag{Name: "file", Required: true, Usage: "the loop's events file"},
			&cli.StringFlag{Name: "then", Usage: "codex: the user's own notify program (a JSON list), run after with the event"},
			&cli.StringFlag{Name: "token", Usage: "the iteration's token, which ties the event to the agent the loop started"},
			&cli.IntFlag{Name: "hold", Usage: "claude, PermissionRequest: seconds to hold the request for a person's answer"},
			&cli.StringFlag{Name: "status-line", Usage: "claude: run as its status line, keeping the plan's limits it is told in this file"},
		},
		Action: func(c *cli.Context) error {
			if pace := c.String("status-line"); pace != "" {
				agentStatusLine(pace, c.String("token"), os.Stdin, c.App.Writer)
				return nil
			}
			// The user's program first: the event ends the iteration, and its agent's process
			// group with whatever runs in it.
			if then := c.String("then"); then != "" && c.NArg() > 0 {
				runUserNotify(then, c.Args().Get(c.NArg()-1))
			}
			e, ok := recordAgentEvent(c.String("agent"), c.String("file"), c.String("token"), c.Args().Slice(), os.Stdin)
			if hold := c.Int("hold"); ok && hold > 0 && e.Event == ralph.EventPermissionRequest {
				holdForAnswer(c.String("file"), e, time.Duration(hold)*time.Second, c.App.Writer)
			}
			return nil
		},
	}
}

// recordAgentEvent appends the event to file, with the token the agent's hooks gave; an event
// it cannot read is dropped. Claude Code's input, which holds the agent's whole last answer,
// is read as a stream: whatever its length, the event is recorded, with the end of that answer.
func recordAgentEvent(agent, file, token string, args []string, stdin io.Reader) (e ralph.AgentEvent, ok bool) {
	if agent == "codex" {
		if len(args) == 0 {
			return e, false
		}
		e, ok = ralph.ParseAgentEvent(agent, []byte(args[len(args)-1]), time.Now())
	} else if agent == "copilot" {
		e, ok = ralph.ReadCopilotEvent(stdin, time.Now())
	} else {
		e, ok = ralph.ReadAgentEvent(agent, stdin, time.Now())
	}
	if !ok {
		return e, false
	}
	e.Token = token
	if e.Message = words.OneLine(e.Message); len(e.Message) > ralph.EventMessageKept {
		// The end, where a marker is.
		e.Message = strings.ToValidUTF8(e.Message[len(e.Message)-ralph.EventMessageKept:], "")
	}
	line, err := json.Marshal(e)
	if err != nil {
		return e, false
	}
	// No directory is made: a loop that is gone has nobody to read it. Appends take turns, so
	// lines of hooks that run at once never interleave.
	return e, state.AppendLine(file, string(line)) == nil
}

// runUserNotify runs the notify program of the user's Codex configuration with the event, as
// Codex would have without swarm's (its output is not the agent's business). One that takes
// longer than userNotifyWait goes on by itself while the event is recorded.
func runUserNotify(then, event string) {
	var argv []string
	if json.Unmarshal([]byte(then), &argv) != nil || len(argv) == 0 {
		return
	}
	cmd := exec.Command(argv[0], append(argv[1:], event)...)
	if cmd.Start() != nil {
		return
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(userNotifyWait):
	}
}

// userNotifyWait bounds how long the user's notify program holds up the agent's signal.
const userNotifyWait = 2 * time.Second
