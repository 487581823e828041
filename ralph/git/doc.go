// Package git is the only place that runs git. Every call is `git -C DIR args...` (argv,
// never a shell string), and a failure carries git's own message, so callers can pass it on
// to the user as it is.
//
// Its users are the loop and the CLI. The loop (package ralph) records the commit an
// iteration starts from and tells from a fingerprint of the work tree whether it changed
// anything; the Regent looks at an iteration's commits, tests an earlier commit on the side,
// reverts and pushes; agent mode makes one commit per spec or sets a failed spec's changes
// aside, and with a shared inbox (ralph/sharedinbox) fetches the shared remote, reads files of
// its branch without a checkout, writes claim commits, moves refs there by compare-and-swap
// pushes (--force-with-lease) and replays a finished spec on the remote's branch. The CLI
// (package swarm) gives workers worktrees of their own (git worktrees, or clones that borrow
// the repository's objects, their branches fetched back) and removes them, and records where a
// new loop starts; `swarm land` merges in a scratch worktree and moves a target by
// compare-and-swap, those of its commands that run the repository's hooks or reach a remote
// bounded by a context (bounded.go). The Regent has every git it runs start in a process
// group of its own and recorded (TrackRuns), so that its successor ends a git, hooks and all,
// that a Regent killed mid-commit left running. The package sits beside the loop, not under the CLI, because the loop needs
// it and must not depend on the CLI.
package git
