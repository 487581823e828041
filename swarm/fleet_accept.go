package swarm

import (
	"fmt"
	"strings"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// A host's workers are taken in as untrusted. The answer is bounded in size where it is read
// (remote.MaxReply); each worker must have a name a command could take (worker.ValidateName,
// as for this machine's), else it is left out and said so, escaped: a name is never printed
// raw, and never split in two by a newline in `ls --format names`. The rest of what a host
// says of a worker is shown escaped (printFleetTable); JSON escapes it by itself.

// acceptWorkers keeps the workers of a host whose names are valid, and says what was left
// out ("" when nothing was).
func acceptWorkers(host string, workers []workerJSON) (kept []workerJSON, left string) {
	var bad []string
	kept = workers[:0]
	for _, w := range workers {
		if why := invalidName(w.Name); why != "" {
			bad = append(bad, why)
			continue
		}
		kept = append(kept, w)
	}
	return kept, leftOut(host, bad)
}

// invalidName is why a host's worker name could not be taken by a command, escaped; "" for
// a valid one.
func invalidName(name string) string {
	if err := worker.ValidateName(name); err != nil {
		return hostText(err.Error())
	}
	return ""
}

// leftOut says that host's workers were left out for the reasons bad (the first few); ""
// when none was.
func leftOut(host string, bad []string) string {
	n := len(bad)
	if n == 0 {
		return ""
	}
	if n > 3 {
		bad = append(bad[:3:3], "...")
	}
	return fmt.Sprintf("%s named %s no command can take, left out (%s)",
		host, words.Plural(n, "worker"), strings.Join(bad, "; "))
}
