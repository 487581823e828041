package swarm

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/regent"
)

func ralphResumeCommand() *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "continue a paused, failed or finished loop (restarting its monitor if it died)",
		ArgsUsage: "NAME",
		Description: `Continues from the current iteration count. Also brings back a loop whose monitor died
(status running, no monitor), restarts a failed loop with its consecutive failures reset, and
with --max-iterations runs more iterations of a loop that used all it had. A loop stopped by
'swarm kill' stays stopped.

Examples:
   swarm ralph resume agent
   swarm ralph resume agent --max-iterations 30`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "max-iterations", Usage: "raise (or set) the loop's iteration limit; not below the current iteration"},
		},
		Action: func(c *cli.Context) error {
			o := ralphResumeOptions{Args: c.Args().Slice(), SetLimit: c.IsSet("max-iterations"), MaxIterations: c.Int("max-iterations")}
			return withEnv(c, o.check, func(e *env) error { return runRalphResume(e, o) })
		},
	}
}

// ralphResumeOptions are the arguments of `swarm ralph resume`.
type ralphResumeOptions struct {
	Args          []string
	SetLimit      bool // --max-iterations was given
	MaxIterations int
}

func (o ralphResumeOptions) check() error {
	if err := exactlyOneName(o.Args, "swarm ralph resume NAME [--max-iterations N]"); err != nil {
		return err
	}
	if o.SetLimit {
		return checkMaxIterations(o.MaxIterations)
	}
	return nil
}

// runRalphResume resumes the loop (see regent.ResumeLoop), then has it driven again.
func runRalphResume(e *env, o ralphResumeOptions) error {
	name := o.Args[0]
	_, ld, _, err := loadLoop(e, name)
	if err != nil {
		return err
	}
	if err := agentResumable(ld, name); err != nil {
		return err
	}
	req := ralph.ResumeRequest{}
	if o.SetLimit {
		warnManyIterations(e, o.MaxIterations)
		req.MaxIterations = o.MaxIterations
	}
	r, err := regent.ResumeLoop(ld, req)
	switch {
	case err == nil:
	case errors.Is(err, ralph.ErrUnchanged), errors.Is(err, regent.ErrKilled):
		e.warnf("worker '%s' is not paused", name)
		return nil
	case errors.Is(err, ralph.ErrFinished):
		return fail("ralph loop for '%s' is %w; run more with 'swarm ralph resume %s --max-iterations %d'",
			name, err, name, r.State.CurrentIteration+r.State.MaxIterations)
	default:
		// A limit below the current iteration, or a state that cannot be read.
		return loopStateError(ld, name, err)
	}
	if err := regent.WakeDriver(e.Host, name, r); err != nil {
		return fail("%w", err)
	}
	if r.LimitOnly {
		fmt.Fprintf(e.stdout, "set the iteration limit of ralph loop for %s to %d\n", name, r.State.MaxIterations)
	} else {
		fmt.Fprintf(e.stdout, "resumed ralph loop for %s\n", name)
	}
	return nil
}

// agentResumable refuses to resume an agent that ended: it has no spec to go on with, and
// its last loop must not run again.
func agentResumable(ld ralph.Dir, name string) error {
	if am, _ := ld.LoadAgentMode(); am != nil && am.Stage == "" {
		return fail("agent '%s' has stopped (%s): queue specs with 'swarm inbox add' and start an agent with 'swarm agent'", name, am.StopReason)
	}
	return nil
}
