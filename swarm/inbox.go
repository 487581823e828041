package swarm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/inbox"
	"github.com/swarm-dev/swarm/ralph/sharedinbox"
	"github.com/swarm-dev/swarm/ralph/words"
)

// `swarm inbox`: a project's queue of specs (ralph/inbox.jsonl).

func inboxCommand() *cli.Command {
	dir := &cli.StringFlag{Name: "dir", Usage: "the project (its git root; default: the current directory's)", Value: "."}
	return &cli.Command{
		Name:  "inbox",
		Usage: "a project's queue of specs: add, list, remove, clear, release",
		Description: `Specs live in the project's ralph/specs/; the queue is ralph/inbox.jsonl, first in, first
out, one JSON record per line (t, id, spec, added_at, status, started_at, completed_at,
error). Changes are atomic and under a lock; a damaged file is reported with its line
and never rewritten. The project is the git root of --dir (default: the current directory).

With --remote NAME the list is the queue shared through that git remote (swarm agent
--shared): this clone's records, those committed on the remote's default branch, and each
spec's claim (holder host/worker, state, age; "expired" past --claim-timeout).

Examples:
   swarm inbox add feature-x.md
   swarm inbox
   swarm inbox --remote origin
   swarm inbox --remote origin --format json
   swarm inbox remove q-a1b2
   swarm inbox clear
   swarm inbox release q-a1b2
   swarm query inbox`,
		Flags:  inboxListFlags(dir),
		Action: func(c *cli.Context) error { return runInboxList(outputEnv(c), inboxListFrom(c), c.Args().Slice()) },
		Subcommands: []*cli.Command{
			{Name: "add", Usage: "queue a spec of ralph/specs/", ArgsUsage: "SPEC.md", Flags: []cli.Flag{dir},
				Action: func(c *cli.Context) error { return runInboxAdd(outputEnv(c), c.String("dir"), c.Args().Slice()) }},
			{Name: "list", Usage: "show the queue (with --remote: and the claims on a shared remote)", Flags: inboxListFlags(dir),
				Action: func(c *cli.Context) error { return runInboxList(outputEnv(c), inboxListFrom(c), c.Args().Slice()) }},
			{Name: "remove", Usage: "take a spec out of the queue (not an active one)", ArgsUsage: "ID|SPEC.md", Flags: []cli.Flag{dir},
				Action: func(c *cli.Context) error { return runInboxRemove(outputEnv(c), c.String("dir"), c.Args().Slice()) }},
			{Name: "clear", Usage: "remove every pending spec (active, done and failed stay)", Flags: []cli.Flag{dir},
				Action: func(c *cli.Context) error { return runInboxClear(outputEnv(c), c.String("dir"), c.Args().Slice()) }},
			releaseCommand(dir),
		},
	}
}

// openInbox finds the project's inbox.
func openInbox(dir string) (inbox.Inbox, error) {
	ib, err := inbox.Open(dir, gitTopLevel)
	if err != nil {
		return ib, fail("%w", err)
	}
	return ib, nil
}

func gitTopLevel(dir string) (string, error) { return git.Run(dir, "rev-parse", "--show-toplevel") }

func runInboxAdd(e *env, dir string, args []string) error {
	if len(args) != 1 {
		return usageError("swarm inbox add SPEC.md")
	}
	ib, err := openInbox(dir)
	if err != nil {
		return err
	}
	spec, err := specName(ib, args[0])
	if err != nil {
		return err
	}
	var added inbox.Record
	err = ib.Update(func(recs []inbox.Record) ([]inbox.Record, error) {
		recs, added = inbox.Add(recs, spec, time.Now())
		return recs, nil
	})
	if err != nil {
		return fail("%w", err)
	}
	fmt.Fprintf(e.stdout, "Queued: %s %s\n", added.ID, added.Spec)
	return nil
}

// specName is the spec as the queue names it (its path under ralph/specs/); it must exist.
func specName(ib inbox.Inbox, arg string) (string, error) {
	name := filepath.ToSlash(filepath.Clean(arg))
	name = strings.TrimPrefix(name, "ralph/specs/")
	if filepath.IsAbs(arg) {
		if rel, err := filepath.Rel(ib.SpecsDir(), arg); err == nil && !strings.HasPrefix(rel, "..") {
			name = filepath.ToSlash(rel)
		}
	}
	fi, err := os.Stat(filepath.Join(ib.SpecsDir(), name))
	if err != nil || fi.IsDir() || strings.HasPrefix(name, "../") {
		return "", fail("spec not found: ralph/specs/%s (specs live in %s)", name, ib.SpecsDir())
	}
	return name, nil
}

func runInboxList(e *env, o inboxListOptions, args []string) error {
	if len(args) > 0 {
		return fail("usage: swarm inbox [list] (unknown: %s)", strings.Join(args, " "))
	}
	if o.format != "text" && o.format != "json" {
		return fail("invalid --format '%s' (expected text or json)", o.format)
	}
	ib, err := openInbox(o.dir)
	if err != nil {
		return err
	}
	recs, err := ib.Load()
	if err != nil {
		return fail("%w", err)
	}
	now := time.Now()
	if o.remote != "" {
		r, err := sharedinbox.Look(ib.Root, o.remote)
		if err != nil {
			return fail("%w", err)
		}
		return printSharedList(e, o, sharedRows(recs, r, now, o.timeout), o.remote, now)
	}
	if o.format == "json" {
		if recs == nil {
			recs = []inbox.Record{}
		}
		return printJSON(e, recs)
	}
	fmt.Fprintf(e.stdout, "Inbox (%s):\n", words.Plural(len(recs), "spec"))
	// The seed's columns: status 8 wide, the spec at least 16, two spaces between.
	width := 16
	for _, r := range recs {
		width = max(width, len(r.Spec))
	}
	for _, r := range recs {
		fmt.Fprintf(e.stdout, "  %s  %-8s  %-*s  (%s)\n", r.ID, r.Status, width, r.Spec, inboxWhen(r, now))
	}
	return nil
}

// inboxWhen is "added 2h ago", "started 10m ago", "done 5m ago", "failed 1h ago".
func inboxWhen(r inbox.Record, now time.Time) string {
	verb, at := "added", r.AddedAt
	switch r.Status {
	case inbox.Active:
		verb, at = "started", r.StartedAt
	case inbox.Done, inbox.Failed:
		verb, at = r.Status, r.CompletedAt
	}
	t, err := time.Parse(time.RFC3339, at)
	if err != nil {
		return verb
	}
	return verb + " " + words.Ago(t, now)
}

func runInboxRemove(e *env, dir string, args []string) error {
	if len(args) != 1 {
		return usageError("swarm inbox remove ID|SPEC.md")
	}
	ib, err := openInbox(dir)
	if err != nil {
		return err
	}
	var removed inbox.Record
	err = ib.Update(func(recs []inbox.Record) ([]inbox.Record, error) {
		var err error
		recs, removed, err = inbox.Remove(recs, strings.TrimPrefix(args[0], "ralph/specs/"))
		return recs, err
	})
	if err != nil {
		return fail("%w", err)
	}
	fmt.Fprintf(e.stdout, "Removed: %s %s\n", removed.ID, removed.Spec)
	return nil
}

func runInboxClear(e *env, dir string, args []string) error {
	if len(args) > 0 {
		return usageError("swarm inbox clear")
	}
	ib, err := openInbox(dir)
	if err != nil {
		return err
	}
	n := 0
	err = ib.Update(func(recs []inbox.Record) ([]inbox.Record, error) {
		recs, n = inbox.Clear(recs)
		return recs, nil
	})
	if err != nil {
		return fail("%w", err)
	}
	fmt.Fprintf(e.stdout, "Cleared %s\n", words.Plural(n, "pending spec"))
	return nil
}

// `swarm query inbox`: the inbox as JSON, for scripts and agents.
func queryCommand() *cli.Command {
	return &cli.Command{
		Name:      "query",
		Usage:     "print project state as JSON: inbox",
		ArgsUsage: "inbox",
		Description: `Examples:
   swarm query inbox
   swarm query inbox --dir ../other-project | jq '.[] | select(.status == "pending")'`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "dir", Usage: "the project (default: the current directory's)", Value: "."}},
		Action: func(c *cli.Context) error {
			if c.Args().Len() != 1 || c.Args().First() != "inbox" {
				return usageError("swarm query inbox")
			}
			return runQueryInbox(outputEnv(c), c.String("dir"))
		},
	}
}

func runQueryInbox(e *env, dir string) error {
	ib, err := openInbox(dir)
	if err != nil {
		return err
	}
	recs, err := ib.Load()
	if err != nil {
		return fail("%w", err)
	}
	if recs == nil {
		recs = []inbox.Record{}
	}
	return printJSON(e, recs)
}
