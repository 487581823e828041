package swarm

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/swarm-dev/swarm/state/eventlog"
	"github.com/swarm-dev/swarm/swarm/remote"
)

// What `swarm events` prints: a line per event (#ID TIME HOST WORKER KIND details), its
// columns as wide as the widest seen so far, cut to the terminal's width on one; or the event
// as one line of JSON. Every text of an event may be an agent's words or another host's:
// it is escaped before it reaches a terminal (hostText).

// eventsPrinter prints events as they come.
type eventsPrinter struct {
	out    io.Writer
	json   bool
	width  int    // the terminal's; 0 off a terminal
	widths [4]int // of #ID, HOST, WORKER and KIND so far
}

// print prints events, which are laid out together.
func (p *eventsPrinter) print(es []eventlog.Event) error {
	if p.json {
		for _, e := range es {
			if err := writeJSONLine(p.out, e); err != nil {
				return err
			}
		}
		return nil
	}
	cells := make([][]string, len(es))
	for i, e := range es {
		cells[i] = eventCells(e)
		for k := range p.widths {
			p.widths[k] = max(p.widths[k], utf8.RuneCountInString(cells[i][k]))
		}
	}
	var b strings.Builder
	for _, c := range cells {
		b.WriteString(p.line(c))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(p.out, b.String())
	return err
}

// line lays one event's cells out: #ID, HOST, WORKER and KIND padded, TIME between the first
// two, the details last; cut to the terminal's width.
func (p *eventsPrinter) line(c []string) string {
	pad := func(s string, w int) string { return s + strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s))) }
	parts := []string{pad(c[0], p.widths[0]), c[4], pad(c[1], p.widths[1]), pad(c[2], p.widths[2]), pad(c[3], p.widths[3]), c[5]}
	line := strings.TrimRight(strings.Join(parts, "  "), " ")
	if p.width > 0 && utf8.RuneCountInString(line) > p.width {
		r := []rune(line)
		line = string(r[:max(p.width-1, 0)]) + "…"
	}
	return line
}

// eventCells are an event's #ID, HOST, WORKER, KIND, TIME and details, escaped.
func eventCells(e eventlog.Event) []string {
	host := e.Host
	if host == "" {
		host = remote.LocalName
	}
	w := e.Worker
	if w == "" {
		w = "-"
	}
	return []string{"#" + strconv.FormatInt(e.ID, 10), hostText(host), hostText(w), hostText(e.Kind),
		e.Time.Local().Format(eventTimeLayout), hostText(eventDetails(e))}
}

// eventTimeLayout is an event's time in the text: the day and the second, in local time
// (--format json has it whole).
const eventTimeLayout = "01-02 15:04:05"

// eventDetails is the rest of an event in words: "iteration 3, failed, exit 1".
func eventDetails(e eventlog.Event) string {
	var parts []string
	if e.Iteration > 0 {
		parts = append(parts, fmt.Sprintf("iteration %d", e.Iteration))
	}
	for _, s := range []string{e.How, e.Reason, e.What, e.Detail} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if e.By != "" {
		parts = append(parts, "by "+e.By)
	}
	if e.CostUSD != nil {
		parts = append(parts, fmt.Sprintf("$%.2f", *e.CostUSD))
	}
	if e.Branch != "" {
		parts = append(parts, e.Branch)
	}
	if e.Commit != "" {
		parts = append(parts, shortCommit(e.Commit))
	}
	return strings.Join(parts, ", ")
}

// shortCommit is a commit's hash as people read it.
func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
