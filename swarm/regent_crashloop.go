package swarm

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
)

// A Regent that keeps dying is the daemon's failure, not its loops': its keeper stops starting
// it again and leaves the loops as they are (their agents keep working, unwatched), says so in
// every loop's log and escalation, and commands refuse to start it on their own until the user
// has looked ('swarm regent restart' takes over).

// regentCrashLoop records and announces that the Regent was given up after deaths deaths.
func regentCrashLoop(e *env, deaths int) {
	why := fmt.Sprintf("the Regent died %d times in two minutes", deaths)
	_ = state.WriteFileAtomic(regent.FilesOf(e.Dir()).CrashLoop, []byte(why+"; loops are not driven until 'swarm regent restart'\n"), 0o600)
	reason := why + "; it no longer drives this loop (its agent keeps running) until 'swarm regent restart'"
	if f, err := os.OpenFile(regent.FilesOf(e.Dir()).Log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
		fmt.Fprintf(timestamped{f}, "crash loop: died %d times in two minutes; not started again until 'swarm regent restart'\n", deaths)
		f.Close()
	}
	for _, name := range e.LoopNames() {
		ld := ralph.DirFor(e.Dir(), name)
		if !needsRegent(ld) {
			continue
		}
		out, closeOut := monitorOutput(ld, monitorOptions{name: name})
		loop := ralph.New(loopConfig(e.onServerOf(name), nil, loopDrive{name: name, out: out, detail: out}))
		loop.RegentCrashLoop(reason)
		loop.WaitNotifications(notifyFlush)
		closeOut()
	}
}

// regentGivenUp is why the Regent was given up after a crash loop, "" when it was not.
func regentGivenUp(d *state.Dir) string {
	data, err := os.ReadFile(regent.FilesOf(d).CrashLoop)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// errRegentGivenUp is what a command that needs the Regent says while it is given up.
var errRegentGivenUp = errors.New("the Regent stopped after a crash loop: loops are not driven (their agents keep running); see 'swarm regent logs', then run 'swarm regent restart'")
