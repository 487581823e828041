package swarm

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/land"
	"github.com/swarm-dev/swarm/swarm/loop"
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

A loop whose work is over is not run again by accident: one that ended done (a done marker
or pattern, the DONE file, its checkers passed), and one whose branch landed (swarm land
recorded it landed, or its commits are on the target), are refused, with the reason, unless
--again: that runs its task again from where it stopped (with --max-iterations when it used
all its iterations). swarm land --send-back resumes a done loop whose branch did not land
without it.

Examples:
   swarm ralph resume agent
   swarm ralph resume agent --max-iterations 30
   swarm ralph resume agent --again
   swarm ralph resume agent --again --max-iterations 40`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "max-iterations", Usage: "raise (or set) the loop's iteration limit; not below the current iteration"},
			&cli.BoolFlag{Name: "again", Usage: "run a loop that is done, or whose branch landed, once more: its task again"},
		},
		Action: func(c *cli.Context) error {
			o := ralphResumeOptions{Args: c.Args().Slice(), SetLimit: c.IsSet("max-iterations"), MaxIterations: c.Int("max-iterations"),
				Again: c.Bool("again")}
			return withEnv(c, o.check, func(e *env) error { return runRalphResume(e, o) })
		},
	}
}

// ralphResumeOptions are the arguments of `swarm ralph resume`.
type ralphResumeOptions struct {
	Args          []string
	SetLimit      bool // --max-iterations was given
	MaxIterations int
	Again         bool
}

func (o ralphResumeOptions) check() error {
	if err := exactlyOneName(o.Args, "swarm ralph resume NAME [--max-iterations N] [--again]"); err != nil {
		return err
	}
	if o.SetLimit {
		return checkMaxIterations(o.MaxIterations)
	}
	return nil
}

// runRalphResume resumes the loop (see loop.Loops.Resume), then has it driven again.
func runRalphResume(e *env, o ralphResumeOptions) error {
	name := o.Args[0]
	w, ld, st, err := loadLoop(e, name)
	if err != nil {
		return err
	}
	if err := agentResumable(ld, name); err != nil {
		return err
	}
	req := ralph.ResumeRequest{Again: o.Again}
	if o.SetLimit {
		warnManyIterations(e, o.MaxIterations)
		req.MaxIterations = o.MaxIterations
	}
	if !o.Again && (st.Status == ralph.StatusStopped || st.Status == ralph.StatusFailed) {
		// Asked only of a loop that ended: git is not run for a pause and its resume.
		req.Landed = land.BranchLanded(e.Dir(), w)
	}
	r, err := loop.On(e.Machine).Resume(name, req)
	if err != nil {
		return resumeRefused(e, ld, name, o, r, err)
	}
	if err := loop.On(e.Machine).WakeDriver(name, r); err != nil {
		return fail("%w", err)
	}
	if r.LimitOnly {
		fmt.Fprintf(e.stdout, "set the iteration limit of ralph loop for %s to %d\n", name, r.State.MaxIterations)
	} else {
		fmt.Fprintf(e.stdout, "resumed ralph loop for %s\n", name)
	}
	return nil
}

// resumeRefused says why the loop was not resumed; a loop that was not paused only warns.
func resumeRefused(e *env, ld ralph.Dir, name string, o ralphResumeOptions, r loop.Resumed, err error) error {
	switch {
	case errors.Is(err, ralph.ErrUnchanged), errors.Is(err, loop.ErrKilled):
		e.warnf("worker '%s' is not paused", name)
		return nil
	case errors.Is(err, ralph.ErrLanded):
		return fail("ralph loop for '%s' has %w: resuming it would run its task again on work already landed; to do that anyway: '%s'",
			name, err, againCommand(name, o, r.State))
	case errors.Is(err, ralph.ErrDone):
		return fail("ralph loop for '%s' is %w: resuming it would run its task again; to do that anyway: '%s'",
			name, err, againCommand(name, o, r.State))
	case errors.Is(err, ralph.ErrFinished):
		again := ""
		if o.Again {
			again = " --again"
		}
		return fail("ralph loop for '%s' is %w; run more with 'swarm ralph resume %s%s --max-iterations %d'",
			name, err, name, again, r.State.CurrentIteration+r.State.MaxIterations)
	}
	// A limit below the current iteration, or a state that cannot be read.
	return loopStateError(ld, name, err)
}

// againCommand is the command that runs a loop whose work is over once more: with the limit
// asked for, or more iterations when it used all it had.
func againCommand(name string, o ralphResumeOptions, st *ralph.State) string {
	cmd := "swarm ralph resume " + name + " --again"
	switch {
	case o.SetLimit:
		cmd += fmt.Sprintf(" --max-iterations %d", o.MaxIterations)
	case st != nil && st.CurrentIteration >= st.MaxIterations:
		cmd += fmt.Sprintf(" --max-iterations %d", st.CurrentIteration+st.MaxIterations)
	}
	return cmd
}

// agentResumable refuses to resume an agent that ended: it has no spec to go on with, and
// its last loop must not run again.
func agentResumable(ld ralph.Dir, name string) error {
	if am, _ := ld.LoadAgentMode(); am != nil && am.Stage == "" {
		return fail("agent '%s' has stopped (%s): queue specs with 'swarm inbox add' and start an agent with 'swarm agent'", name, am.StopReason)
	}
	return nil
}
