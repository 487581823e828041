package swarm

import (
	"errors"
	"fmt"
	"time"

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

// errKilled refuses to resume a loop that `swarm kill` stopped: its worker was ended on
// purpose, and a resume would start it again.
var errKilled = errors.New("stopped by swarm kill")

// runRalphResume resumes through the loop's own transition. Whether a monitor is alive is
// asked under the loop lock: a paused loop's monitor gives up its lock only while holding the
// loop lock, so the answer cannot be one that is about to change.
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
	var needMonitor, wasOver bool
	st, d, err := ld.Transition(time.Now(), func(s *ralph.State) (ralph.Decision, error) {
		if s.Status == ralph.StatusStopped && s.ExitReason == "killed" {
			return ralph.Decision{}, errKilled
		}
		wasOver = s.Status == ralph.StatusStopped || s.Status == ralph.StatusFailed
		req.MonitorAlive = ld.MonitorAlive()
		d, start, err := ralph.Resume(s, req)
		needMonitor = start
		return d, err
	})
	switch {
	case err == nil:
	case errors.Is(err, ralph.ErrUnchanged), errors.Is(err, errKilled):
		e.warnf("worker '%s' is not paused", name)
		return nil
	case errors.Is(err, ralph.ErrFinished):
		return fail("ralph loop for '%s' is %w; run more with 'swarm ralph resume %s --max-iterations %d'",
			name, err, name, st.CurrentIteration+st.MaxIterations)
	default:
		// A limit below the current iteration, or a state that cannot be read.
		return loopStateError(ld, name, err)
	}
	if wasOver {
		if err := resumeChain(ld); err != nil {
			return err
		}
	}
	switch {
	case needMonitor:
		err = regent.StartMonitor(e.Host, name)
	case wasOver:
		err = handOver(e, ld, name, st.CurrentIteration)
	}
	if err != nil {
		return fail("cannot start the loop monitor: %w", err)
	}
	if d.Status == "" {
		fmt.Fprintf(e.stdout, "set the iteration limit of ralph loop for %s to %d\n", name, st.MaxIterations)
	} else {
		fmt.Fprintf(e.stdout, "resumed ralph loop for %s\n", name)
	}
	return nil
}

// handOver makes sure a loop brought back from stopped or failed has a monitor. One that was
// alive at the resume had seen the loop end and was on its way out, unless it read the state
// again after the resume and drives on: wait until it either leaves (then start another) or
// moves the loop on. A keeper may start one at the same time; the monitor lock keeps one.
func handOver(e *env, ld ralph.Dir, name string, iteration int) error {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if !ld.MonitorAlive() {
			if regent.NeedsMonitor(ld) {
				return regent.StartMonitor(e.Host, name)
			}
			return nil
		}
		st, err := ld.Load()
		if err != nil || st.Status != ralph.StatusRunning || st.Phase != ralph.PhaseEnded || st.CurrentIteration != iteration {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
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

// resumeChain lets a chain stopped at a step go on from that step.
func resumeChain(ld ralph.Dir) error {
	if cs, err := ld.LoadChain(); err == nil && cs != nil && cs.Status == ralph.ChainFailed {
		cs.Resumed()
		if err := ld.SaveChain(cs); err != nil {
			return fail("cannot write the chain's state: %w", err)
		}
	}
	return nil
}
