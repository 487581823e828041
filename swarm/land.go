package swarm

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/land"
)

// landOptions are the arguments of `swarm land`.
type landOptions struct {
	Names       []string
	All         bool
	Repo        string
	Into        string
	TestCommand string
	DryRun      bool
	Push        bool
	SendBack    bool
	Format      string
	// TestTimeout bounds one test run and each git command of a landing; 0: none.
	TestTimeout time.Duration
	// Set by runLand: the run's context (ended by an interrupt) and where its steps are told.
	ctx      context.Context
	progress func(land.Event)
}

func (o landOptions) check() error {
	if o.Repo != "" && !o.All {
		return fail("--repo goes with --all (named workers are landed into their own repositories)")
	}
	if err := notNegative(o.TestTimeout.Seconds(), "--test-timeout"); err != nil {
		return err
	}
	_, err := checkFormat(o.Format, "text", "json")
	return err
}

// defaultTestTimeout is generous: a whole suite, run on a slow machine overnight.
const defaultTestTimeout = 30 * time.Minute

// landDescription is the help of `swarm land`.
const landDescription = `A merge queue for the branches of workers spawned with --worktree. In turn, each branch is
merged (git merge --no-ff, "Land NAME: BRANCH") onto the target's current commit in a scratch
worktree of swarm's own ($SWARM_DIR/land/), the test command runs there, on exactly the tree the
target would get, and the target moves to that commit only if it passed. The target is the
branch checked out in the worker's repository, or --into BRANCH. Checked out, it is
fast-forwarded with its files; untracked files there are no obstacle unless the landing would
overwrite one (they are named), while changes to tracked files leave it alone (commit or stash
there and land again). Your index, stash and working tree are never touched otherwise.

--push pushes the target to its remote (its upstream, else origin) after each landing. When
the remote moved meanwhile, the branch is merged again on top of the remote's new head, tested
there, the local target moved to that commit and pushed again (up to 5 times). What conflicts
or fails there is sent back; the local target keeps its landing, unpushed, and the next
land --push pushes it.

The test command is --test-command, else the loop's own (its --test-command or swarm.toml's
[regent] test_command), else the [regent] test_command of the repository's swarm.toml (allowed
with 'swarm allow', as for a loop) or of your config.toml; with none, a merge without
conflicts is enough, and land says so. A repository's branches are never tested with another
repository's command: --test-command is refused for named workers of several repositories.
It runs as the loop's test gate runs it: sh -c, in a process group of its own, ended whole
after --test-timeout (default 30m, 0: none; the git commands that run the repository's hooks
get the same limit). Out of time, it breaks the tests. A command that cannot run at all (exit
126 or 127: a typo, a missing tool) is no fault of the branch: land says so, naming the
command, leaves the worker queued and sends nothing back. Its output is kept bounded: the
first 8 KiB and the last 1 MiB, the size said.

Each step is said as it happens: merging, testing (the command and its time), moving the
target, pushing; on a terminal as one line rewritten in place, otherwise as plain lines.
With --format json, every step and every worker's result is a JSON object on a line of its
own: {"event": "testing", ...}, then {"event": "result", ...the record...}.

What does not land keeps its branch as it was and is sent back: "needs rebase" (the conflicting
files named) or "breaks tests" (the output kept in $SWARM_DIR/land/NAME.test-output.txt).
With --all, a sent-back branch waits until its worker moves it on; named, it is tried again.
--send-back resumes the loop of a branch sent back, its next iteration's prompt followed by
what failed (the conflicting files, the end of the test output) and what to do: merge the
target into its branch, fix, make the tests pass. When its loop is done again, --all offers
it again.

--all takes the finished workers with a branch of the repository you are in (from any of its
worktrees or subdirectories), or of --repo PATH: the loops that ls calls done (a done marker or
pattern, the DONE file, checkers passed) and the workers that are no loop's and exited 0,
oldest first. The others of that repository (still running, a loop stopped or failed for
another reason, a worker that exited non-zero) are passed over, each said in a line
("passed over: w3 (stopped: max_iterations)"); name one to land it. Named workers may be in
any repository, each tested with its own test command, and the output names the repository
when there is more than one. A worker whose branch (or repository) is gone is said in its
line and the others land; so is one whose landing ran into trouble (a hook refusing its merge,
its branch moved while it was tested, git failing). Worktrees and branches are removed by
'swarm clean', never by land. Exit code 1 when any branch offered did not land; 130 when
interrupted (Ctrl-C ends the test run under way, nothing moves). See 'swarm guide landing'.

Examples:
   swarm land --all --test-command 'go test ./...'
   swarm land --all --test-command 'make test' --test-timeout 1h
   swarm land w1 w2 --into main
   swarm land --all --push
   swarm land --all --dry-run
   swarm land --all --format json
   swarm land --all --send-back
   swarm land --all --repo ~/src/other --test-command 'make test'`

func landCommand() *cli.Command {
	return &cli.Command{
		Name:        "land",
		Usage:       "merge finished workers' branches onto the target branch, tested, one at a time",
		ArgsUsage:   "NAME...",
		Description: landDescription,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every finished worker with a branch in this repository (loops done, workers that exited 0)"},
			&cli.StringFlag{Name: "repo", Usage: "with --all: the repository `PATH` is in, instead of the current directory's"},
			&cli.StringFlag{Name: "into", Usage: "the target branch (default: the branch checked out in the worker's repository)"},
			&cli.StringFlag{Name: "test-command", Usage: "shell command that must pass on the merged tree (default: the loop's own)"},
			&cli.DurationFlag{Name: "test-timeout", Value: defaultTestTimeout, Usage: "time limit of one test run and of each git command that runs the repository's hooks (0: none)"},
			&cli.BoolFlag{Name: "push", Usage: "push the target to its remote after each landing (its upstream, else origin)"},
			&cli.BoolFlag{Name: "send-back", Usage: "resume the loop of a branch that did not land, telling its agent what failed"},
			&cli.BoolFlag{Name: "dry-run", Usage: "say what would land, in which order, and touch nothing"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text or json"},
		},
		Action: func(c *cli.Context) error {
			o := landOptions{Names: c.Args().Slice(), All: c.Bool("all"), Repo: c.String("repo"), Into: c.String("into"),
				TestCommand: c.String("test-command"), DryRun: c.Bool("dry-run"), Push: c.Bool("push"),
				SendBack: c.Bool("send-back"), Format: c.String("format"), TestTimeout: c.Duration("test-timeout")}
			return withEnv(c, o.check, func(e *env) error { return runLand(e, o) })
		},
	}
}

// landResult is one branch's outcome, as printed and as JSON.
type landResult struct {
	*land.Record
	// Skipped says why the branch was passed over this time; DryRun marks what would be done.
	Skipped string `json:"skipped,omitempty"`
	DryRun  bool   `json:"dry_run,omitempty"`
	// SendBack says how --send-back went: the loop resumed, or why not.
	SendBack string `json:"send_back,omitempty"`
	// Repo is the repository of the worker's branch.
	Repo string `json:"repo,omitempty"`
	// Error is what went wrong around the landing (git failing, a record that cannot be
	// written, an interrupt); the others land all the same.
	Error string `json:"error,omitempty"`
}

func runLand(e *env, o landOptions) error {
	sel, err := landSelection(e, o)
	if err != nil {
		return err
	}
	ctx, interrupted := interruptible()
	defer interrupted()
	show := newLandShow(e, o.Format)
	defer show.close()
	o.ctx, o.progress = ctx, show.event
	for _, r := range passedOver(e, o, sel) {
		if o.Format == "json" { // text: passedOver said each already
			show.result(r)
		}
	}
	notLanded := 0
	say := repoHeadings(e, o, sel)
	for _, c := range sel.Candidates {
		say(c.Repo)
		r, err := landOne(e, o, c)
		if err != nil {
			r = failedResult(r, c, err)
		}
		r.Repo = c.Repo
		if r.State != land.Landed || r.Error != "" || (r.Skipped != "" && r.SentBack()) {
			notLanded++
		}
		if o.SendBack && r.SentBack() && r.Skipped == "" && !r.DryRun {
			r.SendBack = resumeWithFailure(e, r.Record)
		}
		show.result(r)
		if ctx.Err() != nil {
			break
		}
	}
	if len(sel.Candidates) == 0 && o.Format == "text" {
		show.line(nothingToLand(sel))
	}
	if sig := interrupted(); sig != nil {
		return exitCode(signalCode(sig))
	}
	if notLanded > 0 && !o.DryRun {
		return exitCode(ExitError)
	}
	return nil
}

// failedResult is the result of a landing that went wrong around the branch: its record as
// the landing left it (else one made up, queued), the error said with it.
func failedResult(r landResult, c land.Candidate, err error) landResult {
	if r.Record == nil {
		r.Record = &land.Record{Worker: c.Worker, Branch: c.Branch, Target: c.Target, State: land.Queued, BranchCommit: c.Tip}
	}
	r.Error = err.Error()
	return r
}

// interruptible is the context of a landing run, ended by SIGINT, SIGTERM or SIGHUP (the test
// run under way is ended with its process group, nothing moves), and a func that stops
// listening and returns the signal that came, if one did.
func interruptible() (context.Context, func() os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	var caught atomic.Value
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-sigs:
			caught.Store(sig)
			cancel()
		case <-done:
		}
	}()
	var once atomic.Bool
	return ctx, func() os.Signal {
		if once.CompareAndSwap(false, true) {
			signal.Stop(sigs)
			close(done)
		}
		sig, _ := caught.Load().(os.Signal)
		return sig
	}
}

// landOne takes one candidate through the queue's decision and, unless passed over or a dry
// run, lands it.
func landOne(e *env, o landOptions, c land.Candidate) (landResult, error) {
	step, why := land.Next(c, len(o.Names) > 0, o.Push)
	if step == land.StepCannot {
		return landResult{Record: &land.Record{Worker: c.Worker, Branch: c.Branch, Target: c.Target, Reason: why}}, nil
	}
	if step == land.StepPush && o.DryRun {
		return landResult{Record: c.Record, Skipped: "landed earlier, not pushed yet: --push without --dry-run pushes it"}, nil
	}
	if step == land.StepPush {
		// Tested again, when the remote moved, with the command the landing was tested with.
		rec, err := land.PushLanded(e.Dir(), c, landingOptions(o, c.Record.TestCommand))
		if err != nil {
			return landResult{Record: c.Record}, fmt.Errorf("pushing %s: %w", c.Worker, err)
		}
		return landResult{Record: rec}, nil
	}
	if step == land.StepSkip {
		rec, err := land.Recover(e.Dir(), c)
		if err != nil {
			e.warnf("landing record of %s: %v", c.Worker, err)
		}
		if rec == nil || c.Landed && rec.State != land.Landed {
			rec = &land.Record{Worker: c.Worker, Branch: c.Branch, Target: c.Target, State: land.Landed, BranchCommit: c.Tip}
		}
		return landResult{Record: rec, Skipped: why}, nil
	}
	test, err := landTestCommand(o, c)
	if err != nil {
		return landResult{}, err
	}
	if o.DryRun {
		rec := &land.Record{Worker: c.Worker, Branch: c.Branch, Target: c.Target, State: land.Queued, BranchCommit: c.Tip, TestCommand: test}
		return landResult{Record: rec, DryRun: true}, nil
	}
	rec, err := land.Land(e.Dir(), c, landingOptions(o, test))
	if err != nil {
		return landResult{Record: rec}, fmt.Errorf("landing %s: %w", c.Worker, err)
	}
	return landResult{Record: rec}, nil
}

// landingOptions are how land.Land lands a candidate for this run.
func landingOptions(o landOptions, test string) land.Options {
	return land.Options{TestCommand: test, Push: o.Push, TestTimeout: o.TestTimeout, Context: o.ctx, Progress: o.progress}
}

// landTestCommand is the test command a candidate lands with: --test-command, else the
// loop's own, else the one the configuration of its repository gives.
func landTestCommand(o landOptions, c land.Candidate) (string, error) {
	switch {
	case o.TestCommand != "":
		return o.TestCommand, nil
	case c.TestCommand != "":
		return c.TestCommand, nil
	}
	test, err := land.ConfigTestCommand(c.Repo)
	if err != nil {
		return "", fail("%w", err)
	}
	return test, nil
}

func printLandResult(out io.Writer, r landResult) {
	tested := "tested with: " + land.Printable(r.TestCommand)
	if r.TestCommand == "" {
		tested = "no test command: the merge alone was checked"
	}
	reason := land.Printable(r.Reason)
	switch {
	case r.Skipped != "":
		fmt.Fprintf(out, "%s: skipped: %s\n", r.Worker, land.Printable(r.Skipped))
	case r.DryRun && r.TestCommand == "":
		fmt.Fprintf(out, "would land %s (%s) into %s; no test command: only the merge would be checked\n", r.Worker, r.Branch, r.Target)
	case r.DryRun:
		fmt.Fprintf(out, "would land %s (%s) into %s; would be tested with: %s\n", r.Worker, r.Branch, r.Target, land.Printable(r.TestCommand))
	case r.State == land.Landed:
		fmt.Fprintf(out, "landed %s (%s) into %s at %s; %s\n", r.Worker, r.Branch, r.Target, ralph.ShortCommit(r.Commit), tested)
		if r.Pushed != "" {
			fmt.Fprintf(out, "pushed %s to %s\n", r.Target, r.Pushed)
		}
	case r.State == land.BreaksTests:
		if r.OutputFile == "" {
			fmt.Fprintf(out, "%s: breaks tests, not landed: %s\n", r.Worker, reason)
			break
		}
		fmt.Fprintf(out, "%s: breaks tests, not landed: %s (output: %s%s)\n", r.Worker, reason, r.OutputFile, outputNote(r.Record))
		for _, line := range land.Tail(r.OutputFile, 10) {
			fmt.Fprintf(out, "   %s\n", line)
		}
	case r.State == land.NeedsRebase:
		fmt.Fprintf(out, "%s: needs rebase, not landed: %s\n", r.Worker, reason)
	default:
		fmt.Fprintf(out, "%s: not landed: %s\n", r.Worker, reason)
	}
}
