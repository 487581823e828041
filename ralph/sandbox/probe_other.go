//go:build !linux

package sandbox

// probe: bubblewrap is Linux's; other systems have no sandbox for agents in swarm yet.
func probe() string {
	return "sandboxes need Linux and bubblewrap; this system has none in swarm yet (see swarm guide sandbox)"
}
