package swarm

import (
	"testing"

	"github.com/swarm-dev/swarm/ralph"
)

func TestForegroundExitCodes(t *testing.T) {
	failedSpecs := func(completed, failed int) *ralph.AgentMode {
		return &ralph.AgentMode{Session: ralph.AgentSession{SpecsCompleted: completed, SpecsFailed: failed}}
	}
	cases := []struct {
		name string
		st   ralph.State
		am   *ralph.AgentMode
		want int
	}{
		{"done", ralph.State{Status: ralph.StatusStopped, ExitReason: "done_pattern"}, nil, ExitOK},
		{"complete", ralph.State{Status: ralph.StatusStopped, ExitReason: "complete"}, nil, ExitOK},
		{"iterations used, no checks", ralph.State{Status: ralph.StatusStopped, ExitReason: "max_iterations"}, nil, ExitOK},
		{"iterations used, checks not passed", ralph.State{Status: ralph.StatusStopped, ExitReason: "max_iterations", Checks: []string{"exit-code"}}, nil, ExitError},
		{"failed", ralph.State{Status: ralph.StatusFailed, ExitReason: "consecutive_failures"}, nil, ExitError},
		{"stagnated", ralph.State{Status: ralph.StatusStopped, ExitReason: "stagnated"}, nil, ExitStagnated},
		{"stopped by the user", ralph.State{Status: ralph.StatusStopped, ExitReason: "killed"}, nil, ExitOK},
		{"paused by a signal", ralph.State{Status: ralph.StatusPaused, ExitReason: "signal"}, nil, ExitInterrupted},
		{"paused by ralph pause", ralph.State{Status: ralph.StatusPaused, ExitReason: "user"}, nil, ExitInterrupted},
		{"agent: every spec committed", ralph.State{Status: ralph.StatusStopped, ExitReason: ralph.AgentInboxEmpty}, failedSpecs(2, 0), ExitOK},
		{"agent: every spec failed", ralph.State{Status: ralph.StatusStopped, ExitReason: ralph.AgentInboxEmpty}, failedSpecs(0, 2), ExitError},
		{"agent: one spec of three failed", ralph.State{Status: ralph.StatusStopped, ExitReason: ralph.AgentMaxSpecs}, failedSpecs(2, 1), ExitError},
		{"agent: too many failures", ralph.State{Status: ralph.StatusFailed, ExitReason: ralph.AgentMaxFailures}, failedSpecs(0, 3), ExitError},
		{"agent: interrupted", ralph.State{Status: ralph.StatusPaused, ExitReason: "signal"}, failedSpecs(0, 1), ExitInterrupted},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := foregroundExit(&c.st, c.am); got != c.want {
				t.Errorf("foregroundExit = %d, want %d", got, c.want)
			}
		})
	}
}
