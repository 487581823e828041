package swarm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// The fleet: this machine's workers and every host's, asked at once, each host within a time
// limit. A host that does not answer in time is shown from what it last said, its workers
// marked unreachable with when it was last seen: never as workers that stopped.

// fleetPart is what one machine said of its workers.
type fleetPart struct {
	host    string
	workers []workerJSON
	// problem is why the host did not answer; its workers are then the last seen.
	problem  error
	lastSeen string
	// version is the host's swarm's, when it said; left says which workers of its answer
	// were left out, "" when none.
	version string
	left    string
}

// askFleet asks the hosts for their workers (their `ls --format json` with lsArgs), all at
// once, each within limit.
func askFleet(e *env, hosts []remote.Host, lsArgs []string, limit time.Duration) []fleetPart {
	reg := remote.RegistryOf(e.Dir().Root)
	return askEach(hosts, func(h remote.Host) fleetPart { return askHostWorkers(e.Dir().Root, reg, h, lsArgs, limit) })
}

// askEach asks every host at once and returns the answers in the hosts' order: a host that is
// slow to answer never holds the others up.
func askEach[T any](hosts []remote.Host, ask func(remote.Host) T) []T {
	answers := make([]T, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = ask(h)
		}()
	}
	wg.Wait()
	return answers
}

// askHostWorkers asks one host for its workers, and records what it said (or that it did not).
func askHostWorkers(root string, reg remote.Registry, h remote.Host, lsArgs []string, limit time.Duration) fleetPart {
	part := fleetPart{host: h.Name}
	asked := time.Now()
	reply, raw, err := askLs(root, h, lsArgs, asked.Add(limit))
	now := time.Now()
	if err != nil {
		_ = reg.Failed(h.Name, now, err)
		part.problem = err
		part.workers, part.lastSeen = lastSeenWorkers(reg.Seen(h.Name))
	} else {
		part.workers, part.left = acceptWorkers(h.Name, reply.Workers)
		part.version = reply.Version
		if part.left != "" {
			// What was left out is not kept either.
			raw, _ = json.Marshal(part.workers)
		}
		_ = reg.Answered(h.Name, asked, now, raw, reply.Version)
	}
	for i := range part.workers {
		part.workers[i].Host = h.Name
	}
	return part
}

// askLs asks a host for its workers and its swarm's version, by deadline. A swarm older
// than `host __ls` is asked its plain ls and its version instead.
func askLs(root string, h remote.Host, lsArgs []string, deadline time.Time) (lsReply, json.RawMessage, error) {
	out, err := askWithin(root, h, time.Until(deadline), append([]string{"host", "__ls"}, lsArgs...)...)
	if err == nil {
		return readLsReply(h.Name, out, false)
	}
	var re *remote.RemoteError
	if !errors.As(err, &re) || !strings.Contains(re.Said, "unknown command '__ls'") {
		return lsReply{}, nil, err
	}
	args := append([]string{"ls", "--host", remote.LocalName, "--format", "json"}, lsArgs...)
	if out, err = askWithin(root, h, time.Until(deadline), args...); err != nil {
		return lsReply{}, nil, err
	}
	reply, raw, err := readLsReply(h.Name, out, true)
	if err != nil {
		return reply, nil, err
	}
	if conn, err := remote.Open(root, h); err == nil {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		defer cancel()
		reply.Version, _ = hostVersion(ctx, conn)
	}
	return reply, raw, nil
}

// lastSeenWorkers are a host's workers as last seen, with those spawned from here since,
// each marked unreachable: what they need now is not known.
func lastSeenWorkers(seen remote.Seen) ([]workerJSON, string) {
	var workers []workerJSON
	_ = json.Unmarshal(seen.Workers, &workers)
	for i := range workers {
		workers[i].LastSeen = seen.At
	}
	for _, s := range seen.Spawned {
		var w workerJSON
		if json.Unmarshal(s.Worker, &w) != nil || worker.ValidateName(w.Name) != nil {
			continue
		}
		w.LastSeen = s.At
		if t, err := time.Parse(time.RFC3339Nano, s.At); err == nil {
			w.LastSeen = t.UTC().Format(time.RFC3339)
		}
		if i := slices.IndexFunc(workers, func(o workerJSON) bool { return o.Name == w.Name }); i >= 0 {
			workers[i] = w
		} else {
			workers = append(workers, w)
		}
	}
	for i := range workers {
		workers[i].State, workers[i].StateDetail, workers[i].NeedsPerson = "unreachable", "", nil
	}
	return workers, seen.At
}

// askWithin runs the host's swarm with args, within limit, and returns what it printed (at
// most remote.MaxReply bytes).
func askWithin(root string, h remote.Host, limit time.Duration, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	conn, err := remote.Open(root, h)
	if err != nil {
		return nil, err
	}
	out, err := conn.Output(ctx, nil, args...)
	return out, hostError(err)
}

// printFleet shows the fleet's workers: JSON, names (NAME@HOST for a host's), or a table with
// a HOST column; a host that did not answer is told on stderr too.
func printFleet(e *env, parts []fleetPart, format string) error {
	warnFleet(e, parts)
	all := fleetWorkers(parts)
	switch format {
	case "json":
		return printJSON(e, all)
	case "names":
		for _, j := range all {
			fmt.Fprintln(e.stdout, fleetName(j))
		}
		return nil
	}
	if len(all) == 0 {
		fmt.Fprintln(e.stdout, "no workers")
		return nil
	}
	printFleetTable(e, all)
	return nil
}

// fleetWorkers are every machine's workers, in the machines' order.
func fleetWorkers(parts []fleetPart) []workerJSON {
	all := []workerJSON{}
	for _, p := range parts {
		all = append(all, p.workers...)
	}
	return all
}

// warnFleet tells on stderr of the hosts that did not answer, left workers out, or run
// another version.
func warnFleet(e *env, parts []fleetPart) {
	reg := remote.RegistryOf(e.Dir().Root)
	for _, p := range parts {
		if p.problem != nil {
			e.warnf("%s", unreachableLine(p, time.Now()))
		}
		if p.left != "" {
			e.warnf("%s", p.left)
		}
		if news := versionNews(reg, p.host, p.version); news != "" {
			e.warnf("%s", news)
		}
	}
}

// fleetName is how a worker of the fleet is named in a command: NAME, or NAME@HOST.
func fleetName(j workerJSON) string {
	if j.Host == "" || j.Host == remote.LocalName {
		return j.Name
	}
	return j.Name + "@" + j.Host
}

func unreachableLine(p fleetPart, now time.Time) string {
	seen := "never seen"
	if t, err := time.Parse(time.RFC3339, p.lastSeen); err == nil {
		seen = "last seen " + words.Short(now.Sub(t)) + " ago"
		if len(p.workers) > 0 {
			seen += ", its " + words.Plural(len(p.workers), "worker") + " as they were then"
		}
	}
	return fmt.Sprintf("%s (%s): %s", strings.TrimSuffix(hostProblem(p.problem), "."), seen, p.host)
}

func printFleetTable(e *env, all []workerJSON) {
	rows := make([][]string, len(all))
	landings := make([]*landingJSON, len(all))
	now := time.Now()
	for i, j := range all {
		rows[i], landings[i] = jsonRow(j, now), shownLanding(j.Landing)
		for k := range rows[i] {
			rows[i][k] = hostText(rows[i][k])
		}
	}
	titles := []string{"NAME", "HOST", "STATUS", "WHERE", "UPTIME", "WORKTREE", "TAGS"}
	_ = writeTable(e.stdout, titles, rows, landings, fitOn(e.stdout))
}

// shownLanding is a landing record with what its table cell shows escaped.
func shownLanding(l *landingJSON) *landingJSON {
	if l == nil {
		return nil
	}
	c := *l
	c.State, c.Commit, c.ResumedLoop = hostText(c.State), hostText(c.Commit), hostText(c.ResumedLoop)
	return &c
}

// versionNews is what to tell of a host whose swarm is another version than this one,
// once per change ("" when there is nothing new, or the host did not say).
func versionNews(reg remote.Registry, host, version string) string {
	if version == "" || version == Version || !reg.TellVersion(host, version, Version) {
		return ""
	}
	return fmt.Sprintf("host %s now runs swarm %s, this is swarm %s: commands there may fail or answer otherwise; install swarm %s there (swarm host ls shows every host's version)",
		host, hostText(version), Version, Version)
}

// jsonRow is a worker of the fleet as a table row.
func jsonRow(j workerJSON, now time.Time) []string {
	status := j.State
	switch {
	case j.State == "unreachable":
		status = "unreachable"
		if t, err := time.Parse(time.RFC3339, j.LastSeen); err == nil {
			status += " (seen " + words.Short(now.Sub(t)) + " ago)"
		}
	default:
		status = statusCell(stateWord{word: j.State, detail: j.StateDetail}, j.Sandbox)
	}
	up := "-"
	if t, err := time.Parse(time.RFC3339, j.Started); err == nil && j.Status == "running" && j.State != "unreachable" {
		up = words.Short(now.Sub(t))
	}
	host := j.Host
	if host == "" {
		host = remote.LocalName
	}
	return append([]string{j.Name, host, status}, placeCells(j.Tmux, j.PID, up, j.Worktree, j.Tags)...)
}
