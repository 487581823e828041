package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/swarm/land"
	"github.com/swarm-dev/swarm/swarm/remote"
)

// Text writes the report for a terminal width columns wide (0: no limit): a line on the
// window, a table of the workers with their totals, then what went wrong, the landings, what
// needs a person and the hosts that did not answer. Times are said in loc.
func Text(out io.Writer, r Report, width int, loc *time.Location) error {
	now := parseRFC3339(r.Until)
	var b strings.Builder
	b.WriteString(wrap(windowLine(r, now, loc), width))
	if len(r.Workers) == 0 {
		b.WriteString(wrap("Nothing happened: no worker ran, ended, landed or waited for you in this time.", width))
	} else {
		b.WriteByte('\n')
		for _, l := range table(r, width) {
			b.WriteString(fit(l, width) + "\n")
		}
	}
	section(&b, "Went wrong", wrongLines(r.Workers), width)
	section(&b, "Landings", landingLines(r.Workers), width)
	section(&b, "Needs you", personLines(r.Workers, now, loc), width)
	section(&b, "Hosts that did not answer", hostLines(r.Hosts), width)
	_, err := io.WriteString(out, b.String())
	return err
}

func windowLine(r Report, now time.Time, loc *time.Location) string {
	since := parseRFC3339(r.Since)
	return fmt.Sprintf("Since %s (%s), until %s", since.In(loc).Format("Mon 2006-01-02 15:04"),
		words.Ago(since, now), now.In(loc).Format("15:04"))
}

// section writes a titled list, its items wrapped to width.
func section(b *strings.Builder, title string, items []string, width int) {
	if len(items) == 0 {
		return
	}
	b.WriteString("\n" + title + ":\n")
	for _, item := range items {
		b.WriteString(wrap(item, width))
	}
}

// wrap breaks a line into lines of width columns at most (0: any width), the ones after the
// first indented under it; a word longer than a line is cut across lines.
func wrap(line string, width int) string {
	const indent, narrowest = "    ", 20
	if width < narrowest || ansi.StringWidth(line) <= width {
		return fit(line, width) + "\n"
	}
	first, rest, _ := strings.Cut(ansi.Wrap(line, width, ""), "\n")
	out := first + "\n"
	rest = strings.Join(strings.Fields(rest), " ")
	for _, l := range strings.Split(ansi.Wrap(rest, width-len(indent), ""), "\n") {
		out += indent + l + "\n"
	}
	return out
}

// table is the workers, one a row, and their totals; its widest columns are shortened (the
// iterations' outcomes first) to fit width.
func table(r Report, width int) []string {
	hosts := len(r.Hosts) > 0
	head := []string{"NAME", "HOST", "STATE", "ITERATIONS", "WORKED", "WAITED", "COST", "LAND"}
	rows := [][]string{head}
	for _, w := range r.Workers {
		rows = append(rows, []string{Clean(w.Name), Clean(w.Host), stateCell(w), outcomesCell(w.Outcomes, w.Loop),
			short(w.Time.WorkingS, w.Loop), waitedCell(w.Time.Waiting), costCell(w.CostUSD), landCell(w.Landing)})
	}
	t := r.Totals
	landed := "-"
	if t.Landed+t.SentBack > 0 {
		landed = fmt.Sprintf("%d landed, %d sent back", t.Landed, t.SentBack)
	}
	rows = append(rows, []string{"TOTAL", "", words.Plural(t.Workers, "worker"), outcomesCell(t.Outcomes, t.Loops > 0),
		short(t.Time.WorkingS, t.Loops > 0), waitedCell(t.Time.Waiting), costCell(t.CostUSD), landed})
	if !hosts {
		for i := range rows {
			rows[i] = append(rows[i][:1], rows[i][2:]...)
		}
	}
	return layout(rows, width, []string{"NAME", "STATE", "ITERATIONS"}, fitting)
}

// fitting is how the table gives way on a narrow terminal: first what qualifies a state, the
// landing and the waits, then the outcomes, then everything down to a few letters.
var fitting = []giveWay{{"STATE", 16}, {"LAND", 14}, {"WAITED", 12}, {"ITERATIONS", 16}, {"HOST", 8},
	{"ITERATIONS", 8}, {"STATE", 8}, {"WAITED", 8}, {"LAND", 8}, {"NAME", 8}}

// stateCell is the state in the words of ls; what a worker needs a person for is said below
// the table, with how to answer it.
func stateCell(w Worker) string {
	s := Clean(w.State)
	if w.StateDetail != "" {
		s += " (" + Clean(w.StateDetail) + ")"
	}
	return s
}

// outcomesCell is "12: 1 done, 10 ended, 1 failed"; "-" for a worker that is no loop.
func outcomesCell(o Outcomes, loop bool) string {
	if !loop {
		return "-"
	}
	var parts []string
	for _, c := range o.counted() {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.word))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return fmt.Sprintf("%d: %s", o.Total, strings.Join(parts, ", "))
}

func short(s int64, loop bool) string {
	if !loop {
		return "-"
	}
	return words.Short(time.Duration(s) * time.Second)
}

// waitedCell is the time waited and what for: "2h (usage limit)", "3m (mostly backoff)".
func waitedCell(w Waits) string {
	if w.total() == 0 {
		return "-"
	}
	kinds := []struct {
		s    int64
		word string
	}{{w.UsageLimitS, "usage limit"}, {w.PersonS, "you"}, {w.BackoffS, "backoff"}}
	most := kinds[0]
	for _, k := range kinds[1:] {
		if k.s > most.s {
			most = k
		}
	}
	if most.s < w.total() {
		most.word = "mostly " + most.word
	}
	return words.Short(time.Duration(w.total())*time.Second) + " (" + most.word + ")"
}

func costCell(usd *float64) string {
	if usd == nil {
		return "-"
	}
	return fmt.Sprintf("$%.2f", *usd)
}

// landCell is a landing in a word or two: "landed abc1234", "sent back: needs rebase".
func landCell(l *Landing) string {
	if l == nil {
		return "-"
	}
	word := strings.ReplaceAll(Clean(l.State), "_", " ")
	switch {
	case l.State == land.Landed:
		return "landed " + ralph.ShortCommit(Clean(l.Commit))
	case l.SentBack:
		return "sent back: " + word
	}
	return word
}

// wrongLines are the reasons iterations went wrong, a worker a line: "w2: failed ×4 (exit 1)".
func wrongLines(ws []Worker) []string {
	var out []string
	for _, w := range ws {
		if len(w.Failures) == 0 {
			continue
		}
		parts := make([]string, len(w.Failures))
		for i, f := range w.Failures {
			parts[i] = strings.ReplaceAll(Clean(f.Outcome), "_", " ")
			if f.Count > 1 {
				parts[i] += fmt.Sprintf(" ×%d", f.Count)
			}
			if f.Reason != "" {
				parts[i] += ": " + Clean(f.Reason)
			}
		}
		out = append(out, "  "+fullName(w)+": "+strings.Join(parts, "; "))
	}
	return out
}

// landingLines say where each branch that moved in the queue stands, and why it did not land.
func landingLines(ws []Worker) []string {
	var out []string
	for _, w := range ws {
		l := w.Landing
		if l == nil {
			continue
		}
		word := strings.ReplaceAll(Clean(l.State), "_", " ")
		if l.SentBack {
			word += ", sent back to its loop"
		}
		switch {
		case l.State == land.Landed:
			word = fmt.Sprintf("landed on %s at %s", Clean(l.Target), ralph.ShortCommit(Clean(l.Commit)))
		case l.Reason != "":
			word += ": " + Clean(l.Reason)
		default:
			word += " (into " + Clean(l.Target) + ")"
		}
		out = append(out, "  "+fullName(w)+": "+word)
	}
	return out
}

// personLines say what each agent waiting for a person waits for, since when, and how to answer.
func personLines(ws []Worker, now time.Time, loc *time.Location) []string {
	var out []string
	for _, w := range ws {
		np := w.NeedsPerson
		if np == nil {
			continue
		}
		what := Clean(np.What)
		if since := parseRFC3339(np.Since); !since.IsZero() {
			what += fmt.Sprintf(", since %s (%s)", since.In(loc).Format("15:04"), words.Ago(since, now))
		}
		out = append(out, fmt.Sprintf("  %s: %s; answer it with 'swarm attach %s'", fullName(w), what, fullName(w)))
	}
	return out
}

func hostLines(hosts []Host) []string {
	var out []string
	for _, h := range hosts {
		if !h.Answered {
			out = append(out, "  "+Clean(h.Name)+": "+Clean(h.Problem))
		}
	}
	return out
}

// fullName is how a command names the worker: NAME, or NAME@HOST for a host's.
func fullName(w Worker) string {
	if w.Host == "" || w.Host == remote.LocalName {
		return Clean(w.Name)
	}
	return Clean(w.Name) + "@" + Clean(w.Host)
}

// fit shortens a line to width columns (0: any width), ending it with "…" when cut.
func fit(line string, width int) string {
	if width <= 0 || ansi.StringWidth(line) <= width {
		return line
	}
	return ansi.Truncate(line, width, "…")
}

func parseRFC3339(s string) time.Time {
	t, _ := time.Parse(time.RFC3339, s)
	return t
}
