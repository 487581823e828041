package swarm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/swarm/dashboard"
	"github.com/swarm-dev/swarm/swarm/remote"
)

// The dashboard shows the other hosts' workers beside this machine's: each host's own rows
// (its swarm reads its loops as this one reads its own), asked in the background so that a
// slow host never holds a frame up. The hosts are read again at every round, so a host added
// (or removed) while the dashboard runs comes (or goes) with the next one. A host that stops
// answering keeps its last rows, marked unreachable with when they were seen; one that does
// not answer from the start is shown from what was last seen of it here (remote.Seen: its
// last ls, and the workers spawned there from here since).

// fleetRefresh is how often the hosts are asked again; fleetLimit how long each may take.
const (
	fleetRefresh = 2 * time.Second
	fleetLimit   = 5 * time.Second
)

// fleetWatch holds what the hosts last said, for the dashboard.
type fleetWatch struct {
	root string

	mu    sync.Mutex
	hosts []remote.Host
	seen  map[string]hostRows
	// unread says which hosts' records could not be read, at the last round.
	unread []string
	asked  time.Time
	busy   bool
}

// hostRows is what one host last said: its rows, when, and why it did not answer since.
type hostRows struct {
	rows    []dashboard.Row
	at      time.Time
	problem error
	// left says which of its rows were left out, "" when none.
	left string
}

func newFleetWatch(e *env) *fleetWatch {
	return &fleetWatch{root: e.Dir().Root, seen: map[string]hostRows{}}
}

// rows are the hosts' rows as last seen, and a line per host that did not answer (or whose
// answer was not all taken); the first call waits for the answers, later ones start asking
// again in the background. hosts is how many hosts there are.
func (f *fleetWatch) rows(now time.Time) (rows []dashboard.Row, trouble []string, hosts int) {
	f.mu.Lock()
	first := f.asked.IsZero()
	stale := !f.busy && now.Sub(f.asked) >= fleetRefresh
	if stale {
		f.busy, f.asked = true, now
	}
	f.mu.Unlock()
	if first {
		f.ask()
	} else if stale {
		go f.ask()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	trouble = append(trouble, f.unread...)
	for _, h := range f.hosts {
		hr := f.seen[h.Name]
		for _, r := range hr.rows {
			if hr.problem != nil {
				r.State, r.Tone = unreachableSince(hr.at, now), dashboard.ToneWarn
			}
			rows = append(rows, r)
		}
		if hr.problem != nil {
			trouble = append(trouble, fmt.Sprintf("%s: %s", h.Name, hostProblem(hr.problem)))
		}
		if hr.left != "" {
			trouble = append(trouble, hr.left)
		}
	}
	return rows, trouble, len(f.hosts)
}

func unreachableSince(at, now time.Time) string {
	if at.IsZero() {
		return "unreachable"
	}
	return "unreachable (seen " + words.Short(now.Sub(at)) + " ago)"
}

// ask reads the hosts again and asks every one for its rows at once.
func (f *fleetWatch) ask() {
	type answer struct {
		rows []dashboard.Row
		left string
		err  error
		at   time.Time
	}
	reg := remote.RegistryOf(f.root)
	var unread []string
	hosts := reg.All(func(err error) { unread = append(unread, err.Error()) })
	answers := askEach(hosts, func(h remote.Host) answer {
		rows, left, err := askRows(f.root, h)
		return answer{rows, left, err, time.Now()}
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	seen := make(map[string]hostRows, len(hosts))
	for i, h := range hosts {
		hr, known := f.seen[h.Name]
		if a := answers[i]; a.err == nil {
			hr = hostRows{rows: a.rows, at: a.at, left: a.left}
		} else {
			if !known {
				hr = seenRows(reg.Seen(h.Name), h.Name)
			}
			hr.problem = a.err
		}
		seen[h.Name] = hr
	}
	f.hosts, f.seen, f.unread, f.busy = hosts, seen, unread, false
}

// askRows asks one host for its dashboard rows, named as commands here name them; a row whose
// name no command could take is left out, and left says so.
func askRows(root string, h remote.Host) (rows []dashboard.Row, left string, err error) {
	out, err := askWithin(root, h, fleetLimit, "host", "__rows")
	if err != nil {
		return nil, "", err
	}
	if err := json.Unmarshal(out, &rows); err != nil {
		return nil, "", fmt.Errorf("host %s answered what this swarm cannot read: %w", h.Name, err)
	}
	rows, left = acceptRows(h.Name, rows)
	return rows, left, nil
}

// acceptRows takes a host's rows in as untrusted, as acceptWorkers does its workers: names
// a command could take, the words shown escaped.
func acceptRows(host string, rows []dashboard.Row) ([]dashboard.Row, string) {
	var bad []string
	kept := rows[:0]
	for _, r := range rows {
		if why := invalidName(r.Name); why != "" {
			bad = append(bad, why)
			continue
		}
		r.Name, r.Host = r.Name+"@"+host, host
		r.Kind, r.State, r.Iteration = hostText(r.Kind), hostText(r.State), hostText(r.Iteration)
		for i := range r.Tags {
			r.Tags[i] = hostText(r.Tags[i])
		}
		kept = append(kept, r)
	}
	return kept, leftOut(host, bad)
}

// seenRows are a host's rows from what was last seen of it here.
func seenRows(seen remote.Seen, host string) hostRows {
	workers, at := lastSeenWorkers(seen)
	hr := hostRows{}
	hr.at, _ = time.Parse(time.RFC3339, at)
	for _, w := range workers {
		loop := w.Metadata["ralph"] == true
		r := dashboard.Row{Name: w.Name + "@" + host, Host: host, Kind: "plain", Iteration: "-", Failures: -1,
			Cost: w.CostUSD, Tmux: w.Tmux != nil, Loop: loop, Tags: w.Tags}
		if loop {
			r.Kind = "loop"
		}
		for i := range r.Tags {
			r.Tags[i] = hostText(r.Tags[i])
		}
		r.Started, _ = time.Parse(time.RFC3339, w.Started)
		hr.rows = append(hr.rows, r)
	}
	return hr
}

func hostRowsCommand() *cli.Command {
	return &cli.Command{
		Name: "__rows", Hidden: true, Usage: "this machine's dashboard rows, as JSON (for another machine's dashboard)",
		Action: func(c *cli.Context) error {
			return withEnv(c, nil, func(e *env) error {
				snap := swarmData{e: e}.localSnapshot()
				if snap.Err != "" {
					return fail("%s", snap.Err)
				}
				if snap.Rows == nil {
					snap.Rows = []dashboard.Row{}
				}
				return printJSON(e, snap.Rows)
			})
		},
	}
}

// withFleet adds the hosts' rows to a snapshot of this machine's.
func (d swarmData) withFleet(snap dashboard.Snapshot) dashboard.Snapshot {
	if d.fleet == nil {
		return snap
	}
	rows, trouble, hosts := d.fleet.rows(snap.Now)
	if hosts == 0 {
		return snap
	}
	for i := range snap.Rows {
		snap.Rows[i].Host = remote.LocalName
	}
	snap.Rows = append(snap.Rows, rows...)
	if len(trouble) > 0 {
		snap.Warn = strings.TrimSpace(snap.Warn + "\n" + strings.Join(trouble, "\n"))
	}
	return snap
}

// onHost says whether a row is a worker on another host.
func onHost(r dashboard.Row) bool { return r.Host != "" && r.Host != remote.LocalName }

// remoteLines are the last n lines a swarm command prints for a worker on another host (its
// screen, its log), or why they could not be had.
func (d swarmData) remoteLines(n int, args ...string) []string {
	ctx, cancel := context.WithTimeout(context.Background(), fleetLimit)
	defer cancel()
	exe, err := os.Executable()
	if err != nil {
		return []string{errText(err)}
	}
	// The command escapes what the host prints (runEscaped); what is held of it is bounded.
	out, errs := remote.NewBounded(maxPreview, cancel), remote.NewBounded(maxPreview, nil)
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stdout, cmd.Stderr = out, errs
	if err := cmd.Run(); err != nil && !out.Full() {
		return []string{errText(saidWhy(err, errs.Bytes()))}
	}
	return lastLogLines(string(out.Bytes()), n)
}

// maxPreview is the most of a remote worker's screen or log read for the preview.
const maxPreview = 1 << 20
