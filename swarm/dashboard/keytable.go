package dashboard

import (
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// The dashboard's keys in one table: what is pressed, how the help and the footer say it, and
// what it does. The help screen, the footer's hint and the dispatch are all read from it, so
// a key cannot be added, moved or dropped in one and not the others.

// binding is one line of the help: its keys and what they do.
type binding struct {
	keys  []string // as the terminal library names them ("up", "k", "enter", ...)
	shown string   // how the help shows them ("↑/↓ j/k")
	help  string   // what they do
	// more is a line under help, said with the order in force (nil: none).
	more func(order Sort) string
	// hint is the binding in the footer ("" for none); hinted orders the footer, the keys most
	// needed first, so that a narrow terminal cuts the least needed.
	hint   string
	hinted int
	// do carries the key out; worker bindings act on the selected worker and are left alone
	// while none is selected.
	do     func(m *model, key string) tea.Cmd
	worker bool
}

// bindings are the dashboard's keys, in the help's order.
var bindings = []binding{
	{keys: []string{"up", "k", "down", "j", "home", "end"}, shown: "↑/↓ j/k", help: "select a worker", do: (*model).move},
	{keys: []string{"enter"}, shown: "enter", help: "attach to its tmux window (detach to come back)",
		hint: "enter attach", hinted: 3, do: (*model).attach, worker: true},
	{keys: []string{"p", "r"}, shown: "p / r", help: "pause / resume its loop",
		hint: "p/r pause/resume", hinted: 4, do: (*model).pauseResume, worker: true},
	{keys: []string{"x"}, shown: "x", help: "kill it (asks first)", hint: "x kill", hinted: 5, do: (*model).askKill, worker: true},
	{keys: []string{"s"}, shown: "s", help: "send it a line of text", hint: "s send", hinted: 6, do: (*model).startSend, worker: true},
	{keys: []string{"l"}, shown: "l", help: "its log instead of its screen", hint: "l logs", hinted: 9, do: (*model).toggleLogs},
	{keys: []string{"o"}, shown: "o", help: "order: attention (failed, then blocked or waiting, first) → name → started",
		more: func(order Sort) string { return "(now: " + order.String() + ")" }, hint: "o sort", hinted: 7, do: (*model).nextSort},
	{keys: []string{"/"}, shown: "/", help: "filter by name, kind, state or tag", hint: "/ filter", hinted: 8, do: (*model).startFilter},
	{keys: []string{"esc"}, shown: "esc", help: "clear the filter (while typing it too), close this help",
		do: func(m *model, _ string) tea.Cmd { return m.escape() }},
	{keys: []string{"?"}, shown: "?", help: "this help", hint: "? help", hinted: 1, do: (*model).toggleHelp},
	{keys: []string{"q"}, shown: "q", help: "quit", hint: "q quit", hinted: 2, do: func(*model, string) tea.Cmd { return tea.Quit }},
}

// bindingFor is the binding of a key typed as a command.
func bindingFor(key string) (binding, bool) {
	for _, b := range bindings {
		if slices.Contains(b.keys, key) {
			return b, true
		}
	}
	return binding{}, false
}

// helpLines are the keys, with the order in force.
func helpLines(order Sort) []string {
	width := 0
	for _, b := range bindings {
		width = max(width, len([]rune(b.shown)))
	}
	var out []string
	for _, b := range bindings {
		pad := strings.Repeat(" ", width-len([]rune(b.shown))+2)
		out = append(out, " "+b.shown+pad+b.help)
		if b.more != nil {
			out = append(out, " "+strings.Repeat(" ", width+2)+b.more(order))
		}
	}
	return out
}

// hintLine is the footer's hint: the bindings it names, the most needed first.
func hintLine() string {
	hinted := slices.DeleteFunc(slices.Clone(bindings), func(b binding) bool { return b.hint == "" })
	slices.SortStableFunc(hinted, func(a, b binding) int { return a.hinted - b.hinted })
	hints := make([]string, len(hinted))
	for i, b := range hinted {
		hints[i] = b.hint
	}
	return strings.Join(hints, " · ")
}
