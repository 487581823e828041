package daemon

import (
	"fmt"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/loop"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// A Regent that keeps dying is the daemon's failure, not its loops': its keeper stops starting
// it again and leaves the loops as they are (their agents keep working, unwatched), says so in
// every loop's log and escalation, and commands refuse to start it on their own until the user
// has looked ('swarm regent restart', Restart, takes over).

// recordCrashLoop records and announces that the Regent was given up after deaths deaths.
func recordCrashLoop(m *worker.Machine, deaths int) {
	why := fmt.Sprintf("the Regent died %d times in two minutes", deaths)
	_ = state.WriteFileAtomic(regent.FilesOf(m.Dir()).CrashLoop, []byte(why+"; loops are not driven until 'swarm regent restart'\n"), 0o600)
	reason := why + "; it no longer drives this loop (its agent keeps running) until 'swarm regent restart'"
	fmt.Fprintf(loop.TimedLog(regent.FilesOf(m.Dir()).Log), "crash loop: died %d times in two minutes; not started again until 'swarm regent restart'\n", deaths)
	for _, name := range m.LoopNames() {
		ld := ralph.DirFor(m.Dir(), name)
		if !regent.NeedsRegent(ld) {
			continue
		}
		out := loop.MonitorLog(ld)
		d := loop.On(m.OnServerOf(name)).Driver(nil, loop.Drive{Name: name, Out: out, Detail: out})
		d.RegentCrashLoop(reason)
		d.WaitNotifications(loop.NotifyFlush)
	}
}
