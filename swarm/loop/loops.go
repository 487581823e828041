package loop

import "github.com/swarm-dev/swarm/swarm/worker"

// Loops are the loops of one machine as seen from outside their drivers: what the commands,
// the Regent's daemon, landing and the web server do to a loop, each the same way.
type Loops struct {
	m *worker.Machine
}

// On is the loops of the machine m (its state directory, tmux server and process table).
func On(m *worker.Machine) Loops { return Loops{m: m} }
