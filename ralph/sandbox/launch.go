package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/swarm-dev/swarm/state"
)

// LaunchCommand and InsideCommand are swarm's hidden commands that start a confined agent:
// the first outside bubblewrap, the second inside it when the agent's network goes through
// the egress proxy.
const (
	LaunchCommand = "__sandbox"
	InsideCommand = "__sandbox-inside"
)

// Launch is what the launcher is told of one worker: its arguments on the script's command
// line, in front of the agent's command. None of it is a secret.
type Launch struct {
	WorkDir   string
	InPlace   bool
	Repo      string
	StateDir  string
	Box       string
	EgressLog string
	// Cache is the worker's own directory of caches (see Facts.Cache).
	Cache string
	Net   Net
	Argv  []string
}

// ForWorker is the launch of w's agent; stateDir is swarm's, box the loop's box ("" for a
// worker that is no loop), egressLog where refused connections are written.
func ForWorker(w *state.Worker, stateDir, box, egressLog string) Launch {
	l := Launch{WorkDir: w.Cwd, InPlace: w.Worktree == nil, StateDir: stateDir, Box: box, EgressLog: egressLog,
		Cache: (&state.Dir{Root: stateDir}).SandboxCachePath(w.Name)}
	if w.Worktree != nil {
		// A clone borrows the repository's objects; a git worktree keeps its git directory
		// there: either way the repository is read, never written.
		l.Repo = w.Worktree.BaseRepo
	}
	if w.Sandbox != nil {
		l.Net = Net{Kind: w.Sandbox.Net, Allow: w.Sandbox.Allow}
	}
	if l.Net.Kind == "" {
		l.Net.Kind = NetOpen
	}
	return l
}

// Prefix is the command line that runs the launcher, self being swarm's executable: the
// agent's command follows it.
func (l Launch) Prefix(self string) []string {
	args := []string{self, LaunchCommand, "--workdir", l.WorkDir}
	if l.InPlace {
		args = append(args, "--in-place")
	}
	for _, kv := range [][2]string{{"--repo", l.Repo}, {"--state", l.StateDir}, {"--box", l.Box}, {"--egress-log", l.EgressLog}, {"--cache", l.Cache}} {
		if kv[1] != "" {
			args = append(args, kv[0], kv[1])
		}
	}
	return append(args, "--net", l.Net.String(), "--")
}

// ParseLaunch reads the launcher's arguments (Prefix's, after the command's name).
func ParseLaunch(args []string) (Launch, error) {
	var l Launch
	l.Net.Kind = NetOpen
	value := map[string]*string{"--workdir": &l.WorkDir, "--repo": &l.Repo, "--state": &l.StateDir, "--box": &l.Box,
		"--egress-log": &l.EgressLog, "--cache": &l.Cache}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			l.Argv = args[i+1:]
			return l, l.check()
		case a == "--in-place":
			l.InPlace = true
		case a == "--net" && i+1 < len(args):
			i++
			n, err := ParseNet(args[i])
			if err != nil {
				return l, err
			}
			l.Net = n
		case value[a] != nil && i+1 < len(args):
			i++
			*value[a] = args[i]
		default:
			return l, fmt.Errorf("unknown argument %q", a)
		}
	}
	return l, fmt.Errorf("no command (use -- COMMAND...)")
}

func (l Launch) check() error {
	switch {
	case len(l.Argv) == 0:
		return fmt.Errorf("no command (use -- COMMAND...)")
	case !filepath.IsAbs(l.WorkDir):
		return fmt.Errorf("--workdir must be an absolute path (got %q)", l.WorkDir)
	case strings.HasPrefix(filepath.Clean(l.WorkDir), "/proc") || filepath.Clean(l.WorkDir) == "/":
		return fmt.Errorf("--workdir cannot be %s", l.WorkDir)
	}
	return nil
}
