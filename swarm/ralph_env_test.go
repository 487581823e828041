package swarm

import (
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/regent"
)

// Loops in these tests are state files next to a fake worker; no monitor runs unless a test
// drives one in this process. A keeper window on the fake server stands for a keeper that
// found nothing to do and left at once, so starting a monitor returns without waiting.

func newLoopEnv(t *testing.T) *testEnv {
	t.Helper()
	te := newTestEnv(t)
	te.EndAtStart(regent.Session)
	return te
}

// loop gives a new fake worker name a loop in state st.
func (te *testEnv) loop(name string, st ralph.State) ralph.Dir {
	te.T.Helper()
	te.spawn(name, "")
	return te.Loop(name, st)
}

// keepers lists the argv of every keeper started on the fake server.
func (te *testEnv) keepers() [][]string { return te.PanesOf(regent.Session) }

// errText returns the command's stderr and clears it.
func (te *testEnv) errText() string {
	s := te.errb.String()
	te.errb.Reset()
	return s
}
