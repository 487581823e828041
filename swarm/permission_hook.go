package swarm

import (
	"encoding/json"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// Holding a permission request for a person's answer (see ralph/permission.go): the recorder
// run from Claude Code's PermissionRequest hook with --hold leaves the request in the loop's
// box and waits for its answer file, at most the hold. It goes away with the agent: Claude
// Code's own time limit, a signal, or its parent gone (the agent killed) end the wait, and
// with it the request file, so that nothing says a request is held that is not.

// holdCheck is how often the hold looks whether its parent is still there, between the
// changes of the box that wake it.
const holdCheck = time.Second

// holdForAnswer holds the request e names for hold, and prints the decision of an answer
// that came in time to out; nothing when none did (Claude Code then shows its dialog).
func holdForAnswer(events string, e ralph.AgentEvent, hold time.Duration, out io.Writer) {
	box := filepath.Dir(events)
	now := time.Now()
	req := ralph.PermissionRequest{ID: ralph.NewRequestID(), What: e.Message,
		Until: now.Add(hold).UTC().Format(time.RFC3339Nano)}
	reqPath, ansPath := ralph.PermissionRequestPath(box, req.ID), ralph.PermissionAnswerPath(box, req.ID)
	data, err := json.Marshal(req)
	if err != nil || state.ReplaceFile(reqPath, data, 0o600) != nil {
		return
	}
	defer func() { _ = os.Remove(reqPath); _ = os.Remove(ansPath) }()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(stop)
	name := filepath.Base(ansPath)
	watch := state.WatchFiles([]string{box}, func(n string) bool { return n == name })
	defer watch.Close()
	parent := os.Getppid()
	deadline := time.NewTimer(hold)
	defer deadline.Stop()
	tick := time.NewTicker(holdCheck)
	defer tick.Stop()
	for {
		if a, ok := readAnswer(ansPath); ok {
			_, _ = out.Write(append(ralph.HookDecision(a), '\n'))
			return
		}
		select {
		case <-watch.Changed():
		case <-tick.C:
			if os.Getppid() != parent {
				return // the agent that asked is gone
			}
		case <-deadline.C:
			return
		case <-stop:
			return
		}
	}
}

// readAnswer reads an answer file: one that is not a valid answer is removed, so that a
// person's next answer can take its place.
func readAnswer(path string) (ralph.Answer, bool) {
	data, err := ralph.ReadBoxFile(path)
	if err != nil {
		return ralph.Answer{}, false
	}
	a, err := ralph.ParseAnswer(data)
	if err != nil {
		_ = os.Remove(path)
		return ralph.Answer{}, false
	}
	return a, true
}
