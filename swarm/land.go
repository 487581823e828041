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
	Repo        string
	Into        string
	TestCommand string
	DryRun      bool
	Push        bool
	SendBack    bool
	Format      string
}

func (o landOptions) check() error {
	if o.Repo != "" && !o.All {
		return fail("--repo goes with --all (named workers are landed into their own repositories)")
	}
	_, err := checkFormat(o.Format, "text", "json")
	return err
}

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
line and the others land. Worktrees and branches are removed by 'swarm clean', never by land.
Exit code 1 when any branch offered did not land. See 'swarm guide landing'.

Examples:
   swarm land --all --test-command 'go test ./...'
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
			&cli.BoolFlag{Name: "push", Usage: "push the target to its remote after each landing (its upstream, else origin)"},
			&cli.BoolFlag{Name: "send-back", Usage: "resume the loop of a branch that did not land, telling its agent what failed"},
			&cli.BoolFlag{Name: "dry-run", Usage: "say what would land, in which order, and touch nothing"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text or json"},
		},
		Action: func(c *cli.Context) error {
			o := landOptions{Names: c.Args().Slice(), All: c.Bool("all"), Repo: c.String("repo"), Into: c.String("into"),
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
	// Repo is the repository of the worker's branch.
	Repo string `json:"repo,omitempty"`
}

func runLand(e *env, o landOptions) error {
	sel, err := landSelection(e, o)
	if err != nil {
		return err
	}
	results := passedOver(e, o, sel)
	notLanded := 0
	say := repoHeadings(e, o, sel)
	for _, c := range sel.Candidates {
		say(c.Repo)
		r, err := landOne(e, o, c)
		if err != nil {
			return err
		}
		r.Repo = c.Repo
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
	} else if len(sel.Candidates) == 0 {
		fmt.Fprintln(e.stdout, nothingToLand(sel))
	}
	if notLanded > 0 && !o.DryRun {
		return exitCode(ExitError)
	}
	return nil
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
	test, err := landTestCommand(o, c)
	if err != nil {
		return landResult{}, err
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
