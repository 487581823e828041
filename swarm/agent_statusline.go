package swarm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// swarm's status line for Claude Code: it keeps the plan's limits Claude Code tells it in
// the loop's box, then runs the user's own status line with the same input and prints what
// that prints (nothing when the user has none). It never fails: a status line that fails
// shows its error where the user's would be.

// userStatusLineWait bounds the user's status line: Claude Code runs it again on the next
// change anyway.
const userStatusLineWait = 3 * time.Second

// userStatusLineMax bounds what is printed of the user's status line.
const userStatusLineMax = 8 << 10

// agentStatusLine records the figures read from stdin in pace, with the iteration's token, and
// runs the user's status line.
func agentStatusLine(pace, token string, stdin io.Reader, out io.Writer) {
	data, _ := io.ReadAll(io.LimitReader(stdin, ralph.StatusLineInputMax+1))
	if rl, ok := ralph.ParseStatusLine(bytes.NewReader(data), time.Now()); ok {
		rec, err := json.Marshal(ralph.PaceRecord{RateLimits: rl, Token: token})
		if err == nil {
			// Written whole or not at all: the loop may read it at any moment.
			_ = state.WriteFileAtomic(pace, rec, 0o600)
		}
	}
	var in ralph.StatusLineInput
	_ = json.Unmarshal(data, &in)
	command := ralph.UserStatusLine(os.Getenv, in.ProjectDir())
	if command == "" || len(data) > ralph.StatusLineInputMax {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), userStatusLineWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Dir = in.ProjectDir()
	cmd.Stdin = bytes.NewReader(data)
	shown, _ := cmd.Output()
	if len(shown) > userStatusLineMax {
		shown = shown[:userStatusLineMax]
	}
	_, _ = out.Write(shown)
}
