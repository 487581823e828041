package swarm

import (
	"github.com/swarm-dev/swarm/ralph/config"
	"strings"

	"github.com/swarm-dev/swarm/swarm/worker"
)

// spawnOptions is a worker to start (see worker.SpawnOptions) and what the commands do for it
// once it runs.
type spawnOptions struct {
	worker.SpawnOptions
	// Heartbeat, when set, nudges the new worker on a schedule (--heartbeat).
	Heartbeat *heartbeatSpec
	// Config is the configuration files the agent command was taken from, when it was
	// (none was given after --), applied or ignored.
	Config []config.Source
	// SandboxNotes are what spawn says of the agent's sandbox (see sandboxFromFlags).
	SandboxNotes []string
}

// parseEnvFlags turns repeated --env K=V into a map, refusing anything without a key.
func parseEnvFlags(vals []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range vals {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t\n") {
			return nil, fail("invalid env format '%s' (expected KEY=VAL)", kv)
		}
		m[k] = v
	}
	return m, nil
}
