//go:build !linux

package sandbox

// probe: bubblewrap is Linux's; other systems have no sandbox for agents in swarm yet.
func probe() Support {
	return Support{Namespaces: NamespacesUnknown, Why: "sandboxes need Linux and bubblewrap; this system has none in swarm yet",
		Fix: "see swarm guide sandbox"}
}

// Version: no bubblewrap outside Linux.
func Version(path string) string { return "" }
