package swarm

// How workers are shown: the JSON shape, the ls table, durations.

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/land"
)

// workerJSON is the published shape of a worker in `ls --format json`. The environment shows
// its keys only, the values as "***": scripts look for a variable, values may be secrets.
type workerJSON struct {
	Name   string `json:"name"`
	Status string `json:"status"` // the worker's process: running, stopped or orphaned
	// State is the word ls and status show (running, paused, done, ...; see state_words.go).
	State string `json:"state"`
	// StateDetail qualifies the state word ("exit 4", "max_iterations"), as the table shows.
	StateDetail string `json:"state_detail,omitempty"`
	// NeedsPerson is what a loop needs a person for and since when; null when nothing.
	NeedsPerson *needJSON `json:"needs_person"`
	// Host is the machine the worker runs on, in a listing of several ("local" for this one).
	Host     string              `json:"host,omitempty"`
	LastSeen string              `json:"last_seen,omitempty"`
	Cmd      []string            `json:"cmd"`
	Started  string              `json:"started"`
	Cwd      string              `json:"cwd"`
	Env      map[string]string   `json:"env"`
	Tags     []string            `json:"tags"`
	Tmux     *state.TmuxInfo     `json:"tmux"`
	Worktree *state.WorktreeInfo `json:"worktree"`
	PID      int                 `json:"pid"`
	ExitCode *int                `json:"exit_code,omitempty"`
	Metadata map[string]any      `json:"metadata"`
	// CostUSD is what a loop's agent has cost so far; null when not known (not a loop, or
	// an agent whose token use swarm cannot read).
	CostUSD *float64 `json:"cost_usd"`
	// Landing is where the worker's branch stands in `swarm land`'s queue; absent when it was
	// never offered.
	Landing *landingJSON `json:"landing,omitempty"`
	// Sandbox is how its agent is confined, as spawn recorded it; absent for a worker spawned
	// with no sandbox asked for (or by a swarm before sandboxes).
	Sandbox *state.SandboxInfo `json:"sandbox,omitempty"`
}

// landingJSON is a worker's landing record as ls shows it.
type landingJSON struct {
	State      string   `json:"state"`
	Target     string   `json:"target"`
	Commit     string   `json:"commit,omitempty"`
	Reason     string   `json:"reason,omitempty"`
	Conflicts  []string `json:"conflicts,omitempty"`
	OutputFile string   `json:"output_file,omitempty"`
	Pushed     string   `json:"pushed,omitempty"`
	// ResumedLoop is when its loop was resumed with what failed (land --send-back).
	ResumedLoop string `json:"resumed_loop,omitempty"`
	Updated     string `json:"updated,omitempty"`
}

// landingText says where a branch stands in the queue: "landed on main at abc1234",
// "needs rebase: conflicts with main in a.txt", "breaks tests, sent back to its loop: ...".
func landingText(l *landingJSON) string {
	word := strings.ReplaceAll(l.State, "_", " ")
	if l.ResumedLoop != "" && (l.State == land.NeedsRebase || l.State == land.BreaksTests) {
		word += ", sent back to its loop"
	}
	switch {
	case l.State == land.Landed && l.Pushed != "":
		return fmt.Sprintf("landed on %s at %s, pushed to %s", l.Target, ralph.ShortCommit(l.Commit), l.Pushed)
	case l.State == land.Landed:
		return fmt.Sprintf("landed on %s at %s", l.Target, ralph.ShortCommit(l.Commit))
	case l.Reason != "":
		return word + ": " + l.Reason
	}
	return word + " (into " + l.Target + ")"
}

// landingWord is a branch's landing state in a word or two, for a table cell: "landed
// abc1234", "testing", "sent back: needs rebase".
func landingWord(l *landingJSON) string {
	if l == nil {
		return "-"
	}
	word := strings.ReplaceAll(l.State, "_", " ")
	switch {
	case l.State == land.Landed:
		return "landed " + ralph.ShortCommit(l.Commit)
	case l.ResumedLoop != "":
		return "sent back: " + word
	}
	return word
}

// workerLanding is w's landing record for ls, nil when it has none (or it cannot be read).
func workerLanding(e *env, w *state.Worker) *landingJSON {
	if w.Worktree == nil {
		return nil
	}
	return landingOf(e, w.Name)
}

// landingOf is the landing record of the worker name, nil when it has none (or it cannot be
// read); one a run left in the middle of a landing is shown as the target says it went.
func landingOf(e *env, name string) *landingJSON {
	r, err := land.LoadRecord(e.Dir(), name)
	if err != nil || r == nil {
		return nil
	}
	r = land.Settle(e.Dir(), r)
	return &landingJSON{State: r.State, Target: r.Target, Commit: r.Commit, Reason: r.Reason,
		Conflicts: r.Conflicts, OutputFile: r.OutputFile, Pushed: r.Pushed, ResumedLoop: r.ResumedLoop,
		Updated: r.Updated}
}

func toJSON(w *state.Worker) workerJSON {
	md := map[string]any{}
	for k, v := range w.Metadata {
		if k == "pid_start" {
			continue
		}
		md[k] = v
	}
	tags := w.Tags
	if tags == nil {
		tags = []string{}
	}
	env := make(map[string]string, len(w.Env))
	for k := range w.Env {
		env[k] = "***"
	}
	return workerJSON{
		Name: w.Name, Status: w.Status, Cmd: w.Cmd, Started: w.Started.Format(time.RFC3339),
		Cwd: w.Cwd, Env: env, Tags: tags, Tmux: w.Tmux, Worktree: w.Worktree, PID: w.PID,
		ExitCode: w.ExitCode, Metadata: md, Sandbox: w.Sandbox,
	}
}

// printWorkers shows workers as a table, JSON or one name per line.
func printWorkers(e *env, list []*state.Worker, format string) error {
	switch format {
	case "json":
		return printJSON(e, workersJSON(e, list))
	case "names":
		for _, w := range list {
			fmt.Fprintln(e.stdout, w.Name)
		}
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "no workers")
		return nil
	}
	return printTable(e, list)
}

// workersJSON is list in its published shape.
func workersJSON(e *env, list []*state.Worker) []workerJSON {
	out := make([]workerJSON, 0, len(list))
	for _, w := range list {
		j := stateJSON(w, workerLoop(e, w))
		j.Landing = workerLanding(e, w)
		out = append(out, j)
	}
	return out
}

// stateJSON is a worker in its published shape with what its state says: its words, what
// its loop needs a person for, its cost (loop is nil for a worker that is no loop).
func stateJSON(w *state.Worker, loop *ralph.State) workerJSON {
	j := toJSON(w)
	sw := stateOf(w.Status, w.ExitCode, loop)
	j.State, j.StateDetail = sw.word, sw.detail
	j.NeedsPerson = needOf(w.Status, loop)
	j.CostUSD = loopCost(loop)
	return j
}

// printTable is ls's table; a LAND column is added when a worker listed has a landing record.
func printTable(e *env, list []*state.Worker) error {
	rows := make([][]string, len(list))
	landings := make([]*landingJSON, len(list))
	for i, w := range list {
		rows[i], landings[i] = tableRow(w, workerState(e, w)), workerLanding(e, w)
	}
	titles := []string{"NAME", "STATUS", "WHERE", "UPTIME", "WORKTREE", "TAGS"}
	return writeTable(e.stdout, titles, rows, landings, fitOn(e.stdout))
}

// writeTable writes a table of workers under titles, with a LAND column when one of them has
// a landing record (landings[i] is row i's), fitted to the terminal as fit says.
func writeTable(out io.Writer, titles []string, rows [][]string, landings []*landingJSON, fit tableFit) error {
	cols := make([]tableColumn, len(titles))
	for i, t := range titles {
		cols[i].title = t
		for _, row := range rows {
			cols[i].cells = append(cols[i].cells, row[i])
		}
	}
	if slices.ContainsFunc(landings, func(l *landingJSON) bool { return l != nil }) {
		cols = append(cols, tableColumn{title: "LAND", cells: mapLandings(landings)})
	}
	cols = fit.fitted(cols)
	tw := tabwriter.NewWriter(out, 0, 4, columnGap, ' ', 0)
	line := make([]string, len(cols))
	for i, c := range cols {
		line[i] = c.title
	}
	fmt.Fprintln(tw, strings.Join(line, "\t"))
	for r := range rows {
		for i, c := range cols {
			line[i] = c.cells[r]
		}
		fmt.Fprintln(tw, strings.Join(line, "\t"))
	}
	return tw.Flush()
}

func mapLandings(landings []*landingJSON) []string {
	out := make([]string, len(landings))
	for i, l := range landings {
		out[i] = landingWord(l)
	}
	return out
}

// tableRow is one worker in `swarm ls`: NAME STATUS WHERE UPTIME WORKTREE TAGS; sw is its
// state, marked when its agent runs unsandboxed.
func tableRow(w *state.Worker, sw stateWord) []string {
	up := "-"
	if w.Status == state.StatusRunning {
		up = words.Short(time.Since(w.Started))
	}
	return append([]string{w.Name, statusCell(sw, w.Sandbox)}, placeCells(w.Tmux, w.PID, up, w.Worktree, w.Tags)...)
}

// placeCells are a worker's WHERE, UPTIME, WORKTREE and TAGS cells, up its uptime in words.
func placeCells(tmux *state.TmuxInfo, pid int, up string, wt *state.WorktreeInfo, tags []string) []string {
	where := fmt.Sprintf("pid %d", pid)
	if tmux != nil {
		where = tmux.Session + ":" + tmux.Window
	}
	tree, tagCell := "-", strings.Join(tags, ",")
	if wt != nil {
		tree = wt.Path
	}
	if tagCell == "" {
		tagCell = "-"
	}
	return []string{where, up, tree, tagCell}
}

// loopCost is what a loop (a worker's, nil for none) cost so far, when known.
func loopCost(st *ralph.State) *float64 {
	if st == nil || st.CostIterations == 0 {
		return nil
	}
	return &st.CostUSD
}
