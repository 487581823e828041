package sandbox

import "sync"

// KindBwrap is the record's word for an agent confined by bubblewrap.
const KindBwrap = "bwrap"

var (
	probeOnce   sync.Once
	probeResult string
)

// Probe says why this machine cannot confine agents, with the fix ("" when it can). It is
// asked once per process: the answer does not change while a command runs.
func Probe() string {
	probeOnce.Do(func() { probeResult = probe() })
	return probeResult
}
