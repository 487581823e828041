package dashboard

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/ralph/words"
)

// Drawing one frame of the dashboard: a function of what is shown (frame), so a frame can
// be compared with a golden one and timed in a benchmark. Nothing here reads the state.

// frame is everything one frame shows.
type frame struct {
	Snap     Snapshot
	Rows     []Row    // the rows the filter lets through
	Selected int      // index into Rows
	Screen   []string // the selected worker's screen (or, in the logs view, its log)
	Events   []string // the selected loop's recent events
	Width    int
	Height   int    // 0: as tall as the content (a frame printed once)
	Filter   string // the filter in force
	Sort     Sort   // the rows' order
	Prompt   string // a question being answered or a line being typed
	Message  string // what the last action did
	Error    string // why the last action failed; shown until the next key
	Help     bool   // the keys are shown instead of the screen
	Logs     bool   // the lower panel shows the log, not the screen
}

// styles are the frame's colours; all plain without colour.
type styles struct {
	title, header, selected, dim, rule, regent lipgloss.Style
	tones                                      map[Tone]lipgloss.Style
}

// newStyles builds them without asking the terminal anything: the colours are the 256
// palette's, written as they are (the live dashboard's terminal adapts them to what it shows).
func newStyles(color bool) styles {
	st := lipgloss.NewStyle
	if !color {
		plain := st()
		return styles{title: plain, header: plain, selected: plain, dim: plain, rule: plain, regent: plain,
			tones: map[Tone]lipgloss.Style{ToneQuiet: plain, ToneBusy: plain, ToneGood: plain, ToneWarn: plain, ToneBad: plain}}
	}
	return styles{
		title: st().Bold(true), header: st().Bold(true).Foreground(lipgloss.Color("245")),
		selected: st().Reverse(true), dim: st().Foreground(lipgloss.Color("245")),
		rule: st().Foreground(lipgloss.Color("240")), regent: st().Foreground(lipgloss.Color("208")),
		tones: map[Tone]lipgloss.Style{
			ToneQuiet: st().Foreground(lipgloss.Color("245")), ToneBusy: st().Foreground(lipgloss.Color("39")),
			ToneGood: st().Foreground(lipgloss.Color("42")), ToneWarn: st().Foreground(lipgloss.Color("214")),
			ToneBad: st().Foreground(lipgloss.Color("196")),
		},
	}
}

// columns are the table's columns and their widths (the name's grows with the names).
var columns = []struct {
	title string
	width int
}{{"NAME", 8}, {"KIND", 5}, {"STATE", 26}, {"ITER", 7}, {"CHANGED", 9}, {"FAIL", 4}, {"COST", 8}}

// maxNameWidth bounds the name column; longer names are cut.
const maxNameWidth = 24

// hostShown says whether the table has a HOST column: when a worker on another host is
// among the rows.
func hostShown(rows []Row) bool {
	for _, r := range rows {
		if r.Host != "" {
			return true
		}
	}
	return false
}

// titles are the columns' titles for these rows.
func titles(rows []Row) []string {
	var out []string
	for _, c := range columns {
		out = append(out, c.title)
	}
	if hostShown(rows) {
		out = slices.Insert(out, 1, "HOST")
	}
	return out
}

// stateColumn is the index of the STATE column among columns.
const stateColumn = 2

// widths are the columns' widths for these rows on a terminal of width cells: the STATE
// column grows to show the longest state whole ("blocked (permission: Bash(rm -rf build))",
// "stopped (max_iterations) · sent back: breaks tests") as far as the terminal has room.
func widths(rows []Row, width int) []int {
	out := make([]int, len(columns))
	for i, c := range columns {
		out[i] = c.width
	}
	longest := 0
	for _, r := range rows {
		out[0] = min(maxNameWidth, max(out[0], ansi.StringWidth(r.Name)))
		longest = max(longest, ansi.StringWidth(r.State))
	}
	state := stateColumn
	if hostShown(rows) {
		host := 5
		for _, r := range rows {
			host = min(maxNameWidth, max(host, ansi.StringWidth(r.Host)))
		}
		out = slices.Insert(out, 1, host)
		state++
	}
	// The row's mark ("▸ "), the other columns and a space between each two.
	others := 2 + len(out) - 1
	for i, w := range out {
		if i != state {
			others += w
		}
	}
	out[state] = max(out[state], min(longest, width-others))
	return out
}

// render draws the frame.
func render(v frame, s styles) string {
	var b strings.Builder
	b.WriteString(s.title.Render(fit(headline(v.Snap), clock(v.Snap.Now), v.Width)) + "\n")
	table := tableLines(v, s)
	b.WriteString(strings.Join(table, "\n") + "\n")
	panel := v.Height - 2 - len(table) // all but the headline, the table and the footer
	if v.Height == 0 && len(v.Rows) > 0 {
		panel = len(v.Screen) + len(v.Events) + 2
	} else if v.Height == 0 {
		panel = 0
	}
	for _, l := range lowerPanel(v, s, panel) {
		b.WriteString(l + "\n")
	}
	b.WriteString(footer(v, s))
	return b.String()
}

// headline sums the workers up: "swarm · 4 workers · 2 working · 1 blocked · Regent pid 77".
func headline(snap Snapshot) string {
	parts := []string{"swarm", words.Plural(len(snap.Rows), "worker")}
	counts := map[string]int{}
	var order []string
	for _, r := range snap.Rows {
		word, _, _ := strings.Cut(r.State, " ")
		word = strings.TrimSuffix(word, ":")
		if counts[word] == 0 {
			order = append(order, word)
		}
		counts[word]++
	}
	for _, w := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[w], w))
	}
	var total float64
	for _, r := range snap.Rows {
		if r.Cost != nil {
			total += *r.Cost
		}
	}
	if total > 0 {
		parts = append(parts, fmt.Sprintf("$%.2f", total))
	}
	if snap.Regent != 0 {
		parts = append(parts, fmt.Sprintf("Regent pid %d", snap.Regent))
	}
	return strings.Join(parts, " · ")
}

func clock(now time.Time) string {
	if now.IsZero() {
		return ""
	}
	return now.Format("15:04:05")
}

// tableLines are the column titles and the rows that fit, scrolled to keep the selection in.
func tableLines(v frame, s styles) []string {
	ws := widths(v.Rows, v.Width)
	var head []string
	for i, t := range titles(v.Rows) {
		head = append(head, pad(t, ws[i]))
	}
	lines := []string{s.header.Render(cut(strings.TrimRight("  "+strings.Join(head, " "), " "), v.Width))}
	if v.Snap.Err != "" {
		return append(lines, s.tones[ToneBad].Render(cut("  "+v.Snap.Err, v.Width)))
	}
	if v.Snap.Warn != "" {
		for _, w := range strings.Split(v.Snap.Warn, "\n") {
			lines = append(lines, s.tones[ToneBad].Render(cut("  "+w, v.Width)))
		}
	}
	if len(v.Rows) == 0 {
		empty := "  no workers: start one with 'swarm spawn'"
		if v.Filter != "" {
			empty = "  no worker matches '" + v.Filter + "'"
		}
		return append(lines, s.dim.Render(cut(empty, v.Width)))
	}
	first, last := visibleRows(len(v.Rows), v.Selected, v.Height)
	for i := first; i < last; i++ {
		lines = append(lines, rowLine(v.Rows[i], i == v.Selected, ws, v, s))
	}
	return lines
}

// visibleRows is the window of rows shown: all of them in a frame printed once, otherwise at
// most half the screen, around the selection.
func visibleRows(n, selected, height int) (first, last int) {
	if height == 0 {
		return 0, n
	}
	room := max(3, (height-4)/2)
	if n <= room {
		return 0, n
	}
	first = min(max(0, selected-room/2), n-room)
	return first, first + room
}

// rowLine is one worker's row; the selected one is marked (and, in colour, reversed).
func rowLine(r Row, selected bool, ws []int, v frame, s styles) string {
	cells := []string{r.Name, r.Kind, r.State, r.Iteration, words.Ago(r.Changed, v.Snap.Now), failures(r.Failures), dollars(r.Cost)}
	stateCell := stateColumn
	if len(ws) > len(cells) {
		host := r.Host
		if host == "" {
			host = "local"
		}
		cells, stateCell = slices.Insert(cells, 1, host), stateColumn+1
	}
	for i := range cells {
		cells[i] = pad(cells[i], ws[i])
	}
	if selected {
		return s.selected.Render(cut(strings.TrimRight("▸ "+strings.Join(cells, " "), " "), v.Width))
	}
	line := cut(strings.TrimRight("  "+strings.Join(cells, " "), " "), v.Width)
	// The state is coloured after the line was cut to the width, which it always fits in.
	return strings.Replace(line, cells[stateCell], s.tones[r.Tone].Render(cells[stateCell]), 1)
}

func failures(n int) string {
	if n < 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

// lowerPanel is the selected worker's screen (or log) and its loop's events, in height lines.
func lowerPanel(v frame, s styles, height int) []string {
	if v.Help {
		out := []string{rule("keys", v.Width, s)}
		for _, l := range helpLines(v.Sort) {
			out = append(out, cut(l, v.Width))
		}
		return fill(out, height)
	}
	if len(v.Rows) == 0 || height < 2 {
		return fill(nil, height)
	}
	r := v.Rows[v.Selected]
	events := 0 // a loop's events below its screen: a third of the panel at most, all in a printed frame
	if r.Loop && !v.Logs {
		events = len(v.Events)
		if v.Height > 0 {
			events = min(events, max(0, height/3-1))
		}
	}
	what := "screen"
	if v.Logs {
		what = "log"
	}
	title := r.Name + " · " + what
	if r.Pace != "" {
		title += " · " + r.Pace
	}
	out := []string{rule(title, v.Width, s)}
	screenRoom := height - 1
	if events > 0 {
		screenRoom -= events + 1
	}
	for _, l := range screen.LastN(v.Screen, screenRoom) {
		out = append(out, cut(" "+l, v.Width))
	}
	out = fill(out, 1+screenRoom)
	if events > 0 {
		out = append(out, rule(r.Name+" · events", v.Width, s))
		for _, l := range screen.LastN(v.Events, events) {
			line := cut(" "+l, v.Width)
			if strings.Contains(l, regentMark) {
				line = s.regent.Render(line)
			}
			out = append(out, line)
		}
	}
	return fill(out, height)
}

// footer is the line being typed, why the last action failed, what it did, or the keys.
func footer(v frame, s styles) string {
	switch {
	case v.Prompt != "":
		return cut(v.Prompt, v.Width)
	case v.Error != "":
		return s.tones[ToneBad].Render(cut(v.Error, v.Width))
	case v.Message != "":
		return cut(v.Message, v.Width)
	}
	keys := "sort: " + v.Sort.String() + " · "
	if v.Filter != "" {
		keys += "filter: " + v.Filter + " (esc clears) · "
	}
	// The keys most needed first: a narrow terminal cuts the line's end.
	keys += hintLine()
	return s.dim.Render(cut(keys, v.Width))
}

func rule(title string, width int, s styles) string {
	head := cut("── "+title+" ", width)
	return s.rule.Render(head + strings.Repeat("─", max(0, width-ansi.StringWidth(head))))
}

// fit puts right at the end of a line of width that starts with left (cut to make room).
func fit(left, right string, width int) string {
	rw := ansi.StringWidth(right)
	if width <= rw+1 {
		return cut(left, width)
	}
	left = cut(left, width-rw-1)
	return left + strings.Repeat(" ", width-ansi.StringWidth(left)-rw) + right
}

// cut shortens a line to width cells.
func cut(s string, width int) string {
	if width <= 0 || ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width-1, "") + "…"
}

// pad makes s exactly width cells: cut with "…" or filled with spaces.
func pad(s string, width int) string {
	w := ansi.StringWidth(s)
	if w > width {
		return ansi.Truncate(s, width-1, "") + "…"
	}
	return s + strings.Repeat(" ", width-w)
}

func fill(lines []string, height int) []string {
	for len(lines) < height {
		lines = append(lines, "")
	}
	return lines
}
