package swarm

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/inbox"
	"github.com/swarm-dev/swarm/ralph/sharedinbox"
	"github.com/swarm-dev/swarm/ralph/words"
)

// The inbox shared through a git remote (swarm agent --shared): the list with each spec's
// claim, and swarm inbox release.

// inboxListOptions is what swarm inbox (list) shows.
type inboxListOptions struct {
	dir, remote, format string
	timeout             time.Duration
}

func inboxListFlags(dir cli.Flag) []cli.Flag {
	return []cli.Flag{dir,
		&cli.StringFlag{Name: "remote", Usage: "also show each spec's claim on this shared remote (swarm agent --shared), and the specs queued there"},
		&cli.DurationFlag{Name: "claim-timeout", Value: ralph.DefaultClaimTimeout, Usage: "with --remote: an active claim older than this shows as expired"},
		&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text or json"},
	}
}

func inboxListFrom(c *cli.Context) inboxListOptions {
	return inboxListOptions{dir: c.String("dir"), remote: c.String("remote"), format: c.String("format"), timeout: c.Duration("claim-timeout")}
}

// claimView is a claim as the list shows it.
type claimView struct {
	inbox.Claim
	AgeSeconds int64 `json:"age_s"`
	Expired    bool  `json:"expired"`
}

// inboxRow is a spec of the shared queue: this clone's record (Status is this clone's), its
// claim (nil: unclaimed) and its state in the shared queue (the claim's, else this clone's).
type inboxRow struct {
	inbox.Record
	State string     `json:"state"`
	Claim *claimView `json:"claim"`
}

// sharedRows are the clone's records, those queued on the remote that the clone has not
// merged yet, and claims of specs neither has, each with its claim.
func sharedRows(local []inbox.Record, r *sharedinbox.Remote, now time.Time, timeout time.Duration) []inboxRow {
	recs, _ := inbox.MergeRemote(local, r.Records)
	rows := []inboxRow{}
	seen := map[string]bool{}
	for _, rec := range recs {
		seen[rec.ID] = true
		rows = append(rows, rowOf(rec, viewOf(r.Claims, rec.ID, now, timeout)))
	}
	for _, id := range slices.Sorted(maps.Keys(r.Claims)) {
		if !seen[id] {
			c := r.Claims[id]
			rows = append(rows, rowOf(inbox.Record{T: "inbox", ID: id, Spec: c.Spec}, viewOf(r.Claims, id, now, timeout)))
		}
	}
	return rows
}

func rowOf(rec inbox.Record, v *claimView) inboxRow {
	row := inboxRow{Record: rec, State: rec.Status, Claim: v}
	if v != nil {
		row.State = v.State
	}
	return row
}

func viewOf(claims map[string]inbox.Claim, id string, now time.Time, timeout time.Duration) *claimView {
	c, ok := claims[id]
	if !ok {
		return nil
	}
	v := &claimView{Claim: c, Expired: c.Expired(now, timeout)}
	if !c.At.IsZero() {
		v.AgeSeconds = int64(now.Sub(c.At) / time.Second)
	}
	return v
}

// claimText is the list's CLAIM column: "build-1/builder renewed 3m ago".
func claimText(v *claimView, now time.Time) string {
	if v == nil {
		return "unclaimed"
	}
	c := v.Claim
	switch c.State {
	case inbox.ClaimActive:
		s := fmt.Sprintf("%s renewed %s", c.Holder(), words.Ago(c.At, now))
		if v.Expired {
			s += " (expired)"
		}
		return s
	case inbox.ClaimDone:
		return fmt.Sprintf("%s %s, on %s (%s)", c.Holder(), words.Ago(c.At, now), c.LandedOn, ralph.ShortCommit(c.Landed))
	case inbox.ClaimFailed:
		return fmt.Sprintf("%s %s: %s", c.Holder(), words.Ago(c.At, now), c.Error)
	}
	return fmt.Sprintf("commit %s (%s)", ralph.ShortCommit(c.Commit), c.Error)
}

// printSharedList prints the shared queue: a table with the CLAIM column, or JSON.
func printSharedList(e *env, o inboxListOptions, rows []inboxRow, remote string, now time.Time) error {
	if o.format == "json" {
		return printJSON(e, rows)
	}
	fmt.Fprintf(e.stdout, "Inbox (%s; claims on %s):\n", words.Plural(len(rows), "spec"), remote)
	specW := 16
	for _, r := range rows {
		specW = max(specW, len(r.Spec))
	}
	fmt.Fprintf(e.stdout, "  %-6s  %-10s  %-*s  %s\n", "ID", "STATUS", specW, "SPEC", "CLAIM")
	for _, r := range rows {
		claim := claimText(r.Claim, now)
		if r.Claim == nil && r.Status != "" {
			claim += " (" + inboxWhen(r.Record, now) + ")"
		}
		fmt.Fprintf(e.stdout, "  %s  %-10s  %-*s  %s\n", r.ID, r.State, specW, r.Spec, claim)
	}
	return nil
}

// releasedText says whose a released claim was: "held by build-1/builder, active, renewed 2h
// ago".
func releasedText(c inbox.Claim, now time.Time) string {
	switch c.State {
	case inbox.ClaimActive:
		return fmt.Sprintf("held by %s, active, renewed %s", c.Holder(), words.Ago(c.At, now))
	case inbox.ClaimDone:
		return fmt.Sprintf("held by %s, done %s, on %s (%s)", c.Holder(), words.Ago(c.At, now), c.LandedOn, ralph.ShortCommit(c.Landed))
	case inbox.ClaimFailed:
		return fmt.Sprintf("held by %s, failed %s: %s", c.Holder(), words.Ago(c.At, now), c.Error)
	}
	return fmt.Sprintf("an unreadable claim, commit %s (%s)", ralph.ShortCommit(c.Commit), c.Error)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func releaseCommand(dir cli.Flag) *cli.Command {
	return &cli.Command{
		Name:      "release",
		Usage:     "free a spec's claim on the shared remote (swarm agent --shared), whoever holds it",
		ArgsUsage: "ID",
		Description: `Deletes refs/swarm/claims/ID on the remote: the spec is free for any agent at its next
FETCH. An agent still working on it finds its claim gone at its next renewal and stops
working on it. A spec this clone had finished (done or failed) is put back to pending here.

Examples:
   swarm inbox release q-a1b2
   swarm inbox release q-a1b2 --remote upstream --dir ../project`,
		Flags: []cli.Flag{dir, &cli.StringFlag{Name: "remote", Value: "origin", Usage: "the shared remote"},
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text or json"}},
		Action: func(c *cli.Context) error {
			return runInboxRelease(outputEnv(c), c.String("dir"), c.String("remote"), c.String("format"), c.Args().Slice())
		},
	}
}

func runInboxRelease(e *env, dir, remote, format string, args []string) error {
	if len(args) != 1 {
		return usageError("swarm inbox release ID")
	}
	if format != "text" && format != "json" {
		return fail("invalid --format '%s' (expected text or json)", format)
	}
	ib, err := openInbox(dir)
	if err != nil {
		return err
	}
	c, err := sharedinbox.ReleaseClaim(ib.Root, remote, args[0])
	if err != nil {
		return fail("%w", err)
	}
	requeued := false
	err = ib.Update(func(recs []inbox.Record) ([]inbox.Record, error) {
		if i := inbox.Index(recs, c.ID); i >= 0 && (recs[i].Status == inbox.Done || recs[i].Status == inbox.Failed) {
			recs[i].Status, recs[i].CompletedAt, recs[i].Error, requeued = inbox.Pending, "", "", true
		}
		return recs, nil
	})
	if err != nil {
		return fail("released %s on %s, but this clone's inbox cannot be written: %w", c.ID, remote, err)
	}
	now := time.Now()
	if format == "json" {
		return printJSON(e, struct {
			Released *claimView `json:"released"`
			Requeued bool       `json:"requeued"`
		}{viewOf(map[string]inbox.Claim{c.ID: c}, c.ID, now, 0), requeued})
	}
	fmt.Fprintf(e.stdout, "Released %s (%s) on %s: %s\n", c.ID, orDash(c.Spec), remote, releasedText(c, now))
	if requeued {
		fmt.Fprintf(e.stdout, "%s is pending again in this clone's inbox\n", c.ID)
	}
	return nil
}
