// Package land brings finished workers' branches onto a target branch, one at a time, tested:
// a merge queue. Each branch is merged (git merge --no-ff) onto the target's current commit in
// a scratch worktree of swarm's own, the test command runs on exactly that tree, and the target
// moves to the tested commit only if it is green, by a compare-and-swap on the ref (or a
// fast-forward of a clean checkout of it), so a concurrent land that moved it first makes this
// one merge and test again on the new head. What does not land keeps its branch as it was and
// is recorded as needing a rebase (conflicts, with the files named) or as breaking the tests
// (with the output kept).
//
// Which workers a run considers (Candidates) is the user's choice: those named, from any
// repository, or with --all the finished ones (Offered: what ls calls done) of one repository,
// the rest of it passed over with their state. A worker whose branch cannot be taken up (it is
// gone, or its repository is) is a candidate with its Problem, so that it never stops the
// others.
//
// A worker whose worktree is a clone of the repository (a sandboxed agent's) has its branch
// brought back into the repository (worker.FetchBack) each time it is made a candidate, so
// every run, a dry run too, sees and lands the branch as the clone has it.
//
// The test command runs by the one runner the loop's test gate uses too (ralph/testrun): a
// time limit, a process group ended whole, a command that cannot run kept apart from a red
// suite (queued, never sent back), the output bounded. What goes wrong around one branch (a
// hook refusing its merge, its branch moved while it was tested, git out of time) is recorded
// as that branch's reason, and the caller goes on with the others.
//
// Every step is recorded before it is taken ($SWARM_DIR/land/WORKER.json), and the target
// moves only at the end, in one ref update, the record saying where from before it moves
// (Record.MoveFrom): a run killed at any step leaves the target as it was or at a tested
// commit, Settle tells from the target which, for the views, and the next run records it
// (Recover) or takes the landing up again. Each step is told as it starts (Options.Progress),
// for the CLI to show.
//
// It stands on swarm/worker (which workers there are, their loops' states), ralph (a loop's
// state and test command), ralph/git (every git command) and state (atomic files, locks),
// never on the commands: the CLI's `swarm land` is only its flags and its printing.
package land
