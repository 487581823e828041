package swarm

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/land"
)

// landOptions are the arguments of `swarm land`.
type landOptions struct {
	Names       []string
	All         bool
	Into        string
	TestCommand string
	DryRun      bool
	Push        bool
	SendBack    bool
	Format      string
}

func (o landOptions) check() error {
	_, err := checkFormat(o.Format, "text", "json")
	return err
}

func landCommand() *cli.Command {
	return &cli.Command{
		Name:      "land",
		Usage:     "merge finished workers' branches onto the target branch, tested, one at a time",
		ArgsUsage: "NAME...",
		Description: `A merge queue for the branches of workers spawned with --worktree. In turn, each branch is
merged (git merge --no-ff, "Land NAME: BRANCH") onto the target's current commit in a scratch
worktree of swarm's own ($SWARM_DIR/land/), the test command runs there, on exactly the tree the
target would get, and the target moves to that commit only if it passed. The target is the
branch checked out in the worker's repository, or --into BRANCH. Checked out and clean, it is
fast-forwarded with its files; checked out with uncommitted changes, it is left alone (commit or
stash there and land again). Your index, stash and working tree are never touched otherwise.

--push pushes the target to its remote (its upstream, else origin) after each landing. When
the remote moved meanwhile, the branch is merged again on top of the remote's new head, tested
there, the local target moved to that commit and pushed again (up to 5 times). What conflicts
or fails there is sent back; the local target keeps its landing, unpushed, and the next
land --push pushes it.

The test command is --test-command, else the loop's own (its --test-command or swarm.toml's
[regent] test_command), else the [regent] test_command of the repository's swarm.toml (allowed
with 'swarm allow', as for a loop) or of your config.toml; with none, a merge without
conflicts is enough, and land says so.

What does not land keeps its branch as it was and is sent back: "needs rebase" (the conflicting
files named) or "breaks tests" (the output kept in $SWARM_DIR/land/NAME.test-output.txt).
With --all, a sent-back branch waits until its worker moves it on; named, it is tried again.
--send-back resumes the loop of a branch sent back, its next iteration's prompt followed by
what failed (the conflicting files, the end of the test output) and what to do: merge the
target into its branch, fix, make the tests pass. When it completes again, --all offers it
again.
--all takes every finished worker with a branch: loops that completed, plain workers that
stopped. Worktrees and branches are removed by 'swarm clean', never by land. Exit code 1 when
any branch offered did not land. See 'swarm guide landing'.

Examples:
   swarm land --all --test-command 'go test ./...'
   swarm land w1 w2 --into main
   swarm land --all --push
   swarm land --all --dry-run
   swarm land --all --format json
   swarm land --all --send-back`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every finished worker with a branch (completed loops, stopped workers)"},
			&cli.StringFlag{Name: "into", Usage: "the target branch (default: the branch checked out in the worker's repository)"},
			&cli.StringFlag{Name: "test-command", Usage: "shell command that must pass on the merged tree (default: the loop's own)"},
			&cli.BoolFlag{Name: "push", Usage: "push the target to its remote after each landing (its upstream, else origin)"},
			&cli.BoolFlag{Name: "send-back", Usage: "resume the loop of a branch that did not land, telling its agent what failed"},
			&cli.BoolFlag{Name: "dry-run", Usage: "say what would land, in which order, and touch nothing"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text or json"},
		},
		Action: func(c *cli.Context) error {
			o := landOptions{Names: c.Args().Slice(), All: c.Bool("all"), Into: c.String("into"),
				TestCommand: c.String("test-command"), DryRun: c.Bool("dry-run"), Push: c.Bool("push"),
				SendBack: c.Bool("send-back"), Format: c.String("format")}
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
}

func runLand(e *env, o landOptions) error {
	cs, err := land.Candidates(e.Host, o.Names, o.All, o.Into)
	if err != nil {
		return err
	}
	results := []landResult{}
	notLanded := 0
	for _, c := range cs {
		r, err := landOne(e, o, c)
		if err != nil {
			return err
		}
		if r.State != land.Landed || (r.Skipped != "" && r.SentBack()) {
			notLanded++
		}
		if o.Format == "text" {
			printLandResult(e, r)
		}
		if o.SendBack && r.SentBack() && r.Skipped == "" && !r.DryRun {
			sendBack(e, o, &r)
		}
		results = append(results, r)
	}
	if o.Format == "json" {
		if err := printJSON(e, results); err != nil {
			return err
		}
	} else if len(results) == 0 {
		fmt.Fprintln(e.stdout, "nothing to land")
	}
	if notLanded > 0 && !o.DryRun {
		return exitCode(ExitError)
	}
	return nil
}

// landOne takes one candidate through the queue's decision and, unless passed over or a dry
// run, lands it.
func landOne(e *env, o landOptions, c land.Candidate) (landResult, error) {
	test, err := landTestCommand(o, c)
	if err != nil {
		return landResult{}, err
	}
	step, why := land.Next(c, len(o.Names) > 0, o.Push)
	if step == land.StepPush && o.DryRun {
		return landResult{Record: c.Record, Skipped: "landed earlier, not pushed yet: --push without --dry-run pushes it"}, nil
	}
	if step == land.StepPush {
		rec, err := land.PushLanded(e.Dir(), c)
		if err != nil {
			return landResult{}, fail("pushing %s: %w", c.Worker, err)
		}
		return landResult{Record: rec}, nil
	}
	if step == land.StepSkip {
		rec := c.Record
		if rec == nil || c.Landed {
			rec = &land.Record{Worker: c.Worker, Branch: c.Branch, Target: c.Target, State: land.Landed, BranchCommit: c.Tip}
		}
		return landResult{Record: rec, Skipped: why}, nil
	}
	if o.DryRun {
		rec := &land.Record{Worker: c.Worker, Branch: c.Branch, Target: c.Target, State: land.Queued, BranchCommit: c.Tip, TestCommand: test}
		return landResult{Record: rec, DryRun: true}, nil
	}
	rec, err := land.Land(e.Dir(), c, land.Options{TestCommand: test, Push: o.Push})
	if err != nil {
		return landResult{}, fail("landing %s: %w", c.Worker, err)
	}
	return landResult{Record: rec}, nil
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

func printLandResult(e *env, r landResult) {
	tested := "tested with: " + r.TestCommand
	if r.TestCommand == "" {
		tested = "no test command: the merge alone was checked"
	}
	switch {
	case r.Skipped != "":
		fmt.Fprintf(e.stdout, "%s: skipped: %s\n", r.Worker, r.Skipped)
	case r.DryRun:
		fmt.Fprintf(e.stdout, "would land %s (%s) into %s; %s\n", r.Worker, r.Branch, r.Target, tested)
	case r.State == land.Landed:
		fmt.Fprintf(e.stdout, "landed %s (%s) into %s at %s; %s\n", r.Worker, r.Branch, r.Target, ralph.ShortCommit(r.Commit), tested)
		if r.Pushed != "" {
			fmt.Fprintf(e.stdout, "pushed %s to %s\n", r.Target, r.Pushed)
		}
	case r.State == land.BreaksTests:
		fmt.Fprintf(e.stdout, "%s: breaks tests, not landed: %s (output: %s)\n", r.Worker, r.Reason, r.OutputFile)
		for _, line := range land.Tail(r.OutputFile, 10) {
			fmt.Fprintf(e.stdout, "   %s\n", line)
		}
	case r.State == land.NeedsRebase:
		fmt.Fprintf(e.stdout, "%s: needs rebase, not landed: %s\n", r.Worker, r.Reason)
	default:
		fmt.Fprintf(e.stdout, "%s: not landed: %s\n", r.Worker, r.Reason)
	}
}
