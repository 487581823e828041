package regent

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/driver"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// A Regent that keeps dying is the daemon's failure, not its loops': its keeper stops starting
// it again and leaves the loops as they are (their agents keep working, unwatched), says so in
// every loop's log and escalation, and commands refuse to start it on their own until the user
// has looked ('swarm regent restart', Restart, takes over).

// recordCrashLoop records and announces that the Regent was given up after deaths deaths.
func recordCrashLoop(m *worker.Machine, deaths int) {
	why := fmt.Sprintf("the Regent died %d times in two minutes", deaths)
	_ = state.WriteFileAtomic(FilesOf(m.Dir()).CrashLoop, []byte(why+"; loops are not driven until 'swarm regent restart'\n"), 0o600)
	reason := why + "; it no longer drives this loop (its agent keeps running) until 'swarm regent restart'"
	fmt.Fprintf(regentLog(FilesOf(m.Dir()).Log), "crash loop: died %d times in two minutes; not started again until 'swarm regent restart'\n", deaths)
	for _, name := range m.LoopNames() {
		ld := ralph.DirFor(m.Dir(), name)
		if !needsRegent(ld) {
			continue
		}
		out := MonitorLog(ld)
		loop := driver.New(loopConfig(m.OnServerOf(name), nil, loopDrive{name: name, out: out, detail: out}))
		loop.RegentCrashLoop(reason)
		loop.WaitNotifications(notifyFlush)
	}
}

// GivenUp is why the Regent was given up after a crash loop, "" when it was not.
func GivenUp(d *state.Dir) string {
	data, err := os.ReadFile(FilesOf(d).CrashLoop)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// ErrGivenUp is what a command that needs the Regent says while it is given up.
var ErrGivenUp = errors.New("the Regent stopped after a crash loop: loops are not driven (their agents keep running); see 'swarm regent logs', then run 'swarm regent restart'")
