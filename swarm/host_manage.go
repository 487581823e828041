package swarm

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/swarm/remote"
)

func hostLsCommand() *cli.Command {
	return &cli.Command{
		Name:  "ls",
		Usage: "list the hosts: reachable or not, swarm version, workers, loops, load, free memory, sandbox",
		Description: `Asks every host at once, each within --timeout; a host that does not answer is shown
as unreachable, with why and when it last answered. SANDBOX says whether the host's agents
can be confined (bwrap) or not (none: why, and the fix, follow the table).

Examples:
   swarm host ls
   swarm host ls --format json | jq '.[] | select(.reachable | not) | .name'`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "table or json", Value: "table"},
			&cli.Float64Flag{Name: "timeout", Usage: "seconds each host has to answer", Value: 5},
		},
		Action: func(c *cli.Context) error {
			format := c.String("format")
			check := func() error { _, err := checkFormat(format, "table", "json"); return err }
			return withEnv(c, check, func(e *env) error { return runHostLs(e, format, seconds(c.Float64("timeout"))) })
		},
	}
}

// hostRow is one host as `host ls` shows it.
type hostRow struct {
	Name      string `json:"name"`
	Address   string `json:"address"`
	Reachable bool   `json:"reachable"`
	// Problem is why it cannot be used now (unreachable, authentication, version), "" when
	// it can; Kind says which.
	Problem  string `json:"problem,omitempty"`
	Kind     string `json:"kind,omitempty"`
	LastSeen string `json:"last_seen,omitempty"`
	remote.Hello
}

func runHostLs(e *env, format string, limit time.Duration) error {
	reg := remote.RegistryOf(e.Dir().Root)
	hosts := reg.All(e.warnErr)
	rows := askEach(hosts, func(h remote.Host) hostRow { return askHost(e, reg, h, limit) })
	if format == "json" {
		if rows == nil {
			rows = []hostRow{}
		}
		return printJSON(e, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(e.stdout, "no hosts (add one with swarm host add NAME [user@]address)")
		return nil
	}
	printHostTable(e, rows)
	return nil
}

// askHost asks one host who it is, within limit.
func askHost(e *env, reg remote.Registry, h remote.Host, limit time.Duration) hostRow {
	row := hostRow{Name: h.Name, Address: h.Address}
	out, err := askWithin(e.Dir().Root, h, limit, "host", "__hello")
	if err == nil {
		row.Hello, err = readHello(h.Name, out)
	}
	now := time.Now()
	if err != nil {
		row.Problem, row.Kind = hostProblem(err), "error"
		if re, ok := err.(*remote.Error); ok {
			row.Kind = string(re.Kind)
		}
		_ = reg.Failed(h.Name, now, err)
		row.LastSeen = reg.Seen(h.Name).At
		return row
	}
	row.Reachable = true
	row.LastSeen = now.UTC().Format(time.RFC3339)
	_ = reg.Reached(h.Name, now)
	if row.Version != Version {
		row.Problem, row.Kind = fmt.Sprintf("runs swarm %s, this is %s", hostText(row.Version), Version), "version"
	}
	return row
}

func printHostTable(e *env, rows []hostRow) {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tADDRESS\tSTATE\tVERSION\tWORKERS\tLOOPS\tLOAD\tFREE MEM\tSANDBOX")
	for _, r := range rows {
		if !r.Reachable {
			fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\t-\t-\t-\t-\n", r.Name, r.Address, unreachableWord(r.Kind, r.LastSeen, time.Now()))
			continue
		}
		st := "ok"
		switch {
		case r.Problem != "":
			st = r.Problem
		case r.CommitProblem != "":
			st = "ok, cannot commit (no git identity)"
		}
		loops := fmt.Sprint(r.Loops)
		if r.Parked > 0 {
			loops += fmt.Sprintf(" (%d parked)", r.Parked)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d (%d running)\t%s\t%.2f/%d\t%s\t%s\n", r.Name, r.Address, st, hostText(r.Version),
			r.Workers, r.Running, loops, r.Load, r.CPUs, bytesWord(r.MemAvailable), sandboxCellOfHost(r.Hello))
	}
	_ = tw.Flush()
	for _, r := range rows {
		switch {
		case r.Problem != "" && !r.Reachable:
			fmt.Fprintf(e.stderr, "swarm: %s: %s\n", r.Name, r.Problem)
		case r.Reachable && r.Sandbox == "none":
			fmt.Fprintf(e.stderr, "swarm: %s: cannot confine its agents: %s\n", r.Name, hostText(r.SandboxProblem))
		}
	}
}

// sandboxCellOfHost is a host's SANDBOX cell: "bwrap" where its agents can be confined,
// "none" where they cannot, "-" from a swarm that does not say.
func sandboxCellOfHost(h remote.Hello) string {
	if h.Sandbox == "" {
		return "-"
	}
	return hostText(h.Sandbox)
}

// unreachableWord is how a host that did not answer is shown: "unreachable (last seen 5m
// ago)", "authentication failed", "unreachable (never seen)".
func unreachableWord(kind, lastSeen string, now time.Time) string {
	word := "unreachable"
	switch remote.Kind(kind) {
	case remote.KindAuth:
		word = "authentication failed"
	case remote.KindHostKey:
		word = "host key unknown"
	}
	if t, err := time.Parse(time.RFC3339, lastSeen); err == nil {
		return fmt.Sprintf("%s (last seen %s ago)", word, words.Short(now.Sub(t)))
	}
	return word + " (never seen)"
}

// bytesWord is a size for a table: "512M", "3.2G".
func bytesWord(b int64) string {
	switch {
	case b <= 0:
		return "-"
	case b >= 1<<30:
		return fmt.Sprintf("%.1fG", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%dM", b>>20)
}

func hostRmCommand() *cli.Command {
	return &cli.Command{
		Name:      "rm",
		Usage:     "forget a host (its workers keep running there)",
		ArgsUsage: "NAME",
		Description: `Closes the connection to the host and forgets it here. Nothing on the host changes:
its workers and loops go on under its own swarm; add it again to see them.

Examples:
   swarm host rm box`,
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) != 1 {
				return usageError("swarm host rm NAME")
			}
			return withEnv(c, nil, func(e *env) error {
				reg := remote.RegistryOf(e.Dir().Root)
				h, err := reg.Get(args[0])
				if err != nil {
					return wrapped(ExitNotFound, "%w", err)
				}
				if conn, err := remote.Open(e.Dir().Root, h); err == nil {
					_ = conn.Disconnect()
				}
				if err := reg.Remove(h.Name); err != nil {
					return fail("cannot forget host %s: %w", h.Name, err)
				}
				fmt.Fprintf(e.stdout, "Removed host %s (%s); whatever runs there goes on\n", h.Name, h.Address)
				return nil
			})
		},
	}
}

func hostDisconnectCommand() *cli.Command {
	return &cli.Command{
		Name:      "disconnect",
		Usage:     "close the kept-open connections now (to every host, or those named)",
		ArgsUsage: "[NAME...]",
		Description: `A connection is kept open for a minute after its last use so that commands in a row are
quick; this closes them at once. Nothing on the hosts changes.

Examples:
   swarm host disconnect
   swarm host disconnect box`,
		Action: func(c *cli.Context) error {
			return withEnv(c, nil, func(e *env) error { return runHostDisconnect(e, c.Args().Slice()) })
		},
	}
}

func runHostDisconnect(e *env, names []string) error {
	reg := remote.RegistryOf(e.Dir().Root)
	hosts := reg.All(e.warnErr)
	if len(names) > 0 {
		hosts = hosts[:0]
		for _, n := range names {
			h, err := reg.Get(n)
			if err != nil {
				return wrapped(ExitNotFound, "%w", err)
			}
			hosts = append(hosts, h)
		}
	}
	var problems []string
	for _, h := range hosts {
		conn, err := remote.Open(e.Dir().Root, h)
		if err == nil {
			err = conn.Disconnect()
		}
		if err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return fail("%s", strings.Join(problems, "; "))
	}
	return nil
}
