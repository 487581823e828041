package dashboard

import (
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// The dashboard as a Bubble Tea model: what it shows follows from the messages it gets (a
// fresh look at the workers, a key, the terminal's size, an action's result). Reading and
// acting go through Data, in commands that run beside the model.

// inputMode is what keys are being typed for.
type inputMode int

const (
	modeKeys    inputMode = iota // keys are commands
	modeFilter                   // typing the filter
	modeSend                     // typing a line to send
	modeConfirm                  // answering "kill NAME? (y/n)"
)

// model is the dashboard's state.
type model struct {
	data     Data
	styles   styles
	interval time.Duration
	view     frame
	selected string // the selected worker's name, kept across refreshes
	mode     inputMode
	input    string
	target   string // the worker a prompt is about
	loading  bool   // a refresh is under way
	again    bool   // and another is wanted when it is done
	// exec hands the terminal to a command (tea.Exec; a test runs the command at once).
	exec func(tea.ExecCommand, tea.ExecCallback) tea.Cmd
}

// Messages.
type (
	tickMsg    struct{}
	refreshMsg struct {
		snap           Snapshot
		screen, events []string
		selected       string
	}
	actionMsg struct {
		text   string // what was done
		failed string // what could not be done, when err is set
		err    error
	}
)

func newModel(data Data, styles styles, interval time.Duration) *model {
	return &model{data: data, styles: styles, interval: interval, view: frame{Width: 80, Height: 24},
		exec: tea.Exec}
}

func (m *model) Init() tea.Cmd { return m.refresh() }

// refresh reads the workers and the selected one's screen, beside the model.
func (m *model) refresh() tea.Cmd {
	if m.loading {
		m.again = true
		return nil
	}
	m.loading = true
	data, selected, logs, height := m.data, m.selected, m.view.Logs, max(m.view.Height, 24)
	filter, order := m.view.Filter, m.view.Sort
	return func() tea.Msg {
		snap := data.Snapshot()
		msg := refreshMsg{snap: snap, selected: selected}
		// Nothing selected yet: the first row shown is.
		for _, r := range shownRows(snap.Rows, filter, order) {
			if r.Name == selected || selected == "" {
				msg.selected = r.Name
				msg.screen = data.Screen(r, height, logs)
				msg.events = data.Events(r, height/3)
				break
			}
		}
		return msg
	}
}

func (m *model) tick() tea.Cmd {
	return tea.Tick(m.interval, func(time.Time) tea.Msg { return tickMsg{} })
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.view.Width, m.view.Height = msg.Width, msg.Height
		return m, nil
	case tickMsg:
		return m, m.refresh()
	case refreshMsg:
		return m, m.refreshed(msg)
	case actionMsg:
		m.view.Message, m.view.Error = msg.text, ""
		if msg.err != nil {
			m.view.Message, m.view.Error = "", msg.failed+": "+errText(msg.err)
		}
		return m, m.refresh()
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		return m, m.paste(msg)
	}
	return m, nil
}

// refreshed takes a fresh look in; the screen shown is the selected worker's only if the
// selection did not move while it was read.
func (m *model) refreshed(msg refreshMsg) tea.Cmd {
	m.loading = false
	m.view.Snap = msg.snap
	if m.selected == "" || m.selected == msg.selected {
		m.selected = msg.selected
		m.view.Screen, m.view.Events = msg.screen, msg.events
	}
	cmd := m.applyFilter()
	if m.again {
		m.again = false
		return tea.Batch(cmd, m.refresh())
	}
	return tea.Batch(cmd, m.tick())
}

// applyFilter picks the rows the filter lets through, in the order chosen, and keeps the
// selection on its worker (or the nearest row when it is gone).
func (m *model) applyFilter() tea.Cmd {
	m.view.Rows = shownRows(m.view.Snap.Rows, m.view.Filter, m.view.Sort)
	if i := slices.IndexFunc(m.view.Rows, func(r Row) bool { return r.Name == m.selected }); i >= 0 {
		m.view.Selected = i
		return nil
	}
	return m.choose(min(m.view.Selected, max(0, len(m.view.Rows)-1)))
}

// matches reports whether a row has filter in its name, kind, state or tags.
func matches(r Row, filter string) bool {
	if filter == "" {
		return true
	}
	f := strings.ToLower(filter)
	hay := strings.ToLower(strings.Join(append([]string{r.Name, r.Kind, r.State}, r.Tags...), " "))
	return strings.Contains(hay, f)
}

// choose selects row i; its screen is read at once.
func (m *model) choose(i int) tea.Cmd {
	if i < 0 || i >= len(m.view.Rows) {
		return nil
	}
	m.view.Selected = i
	if name := m.view.Rows[i].Name; name != m.selected {
		m.selected = name
		m.view.Screen, m.view.Events = nil, nil
		return m.refresh()
	}
	return nil
}

func (m *model) View() tea.View {
	v := tea.NewView(render(m.withPrompt(), m.styles))
	v.AltScreen = true
	return v
}

// withPrompt is the frame with the prompt being typed.
func (m *model) withPrompt() frame {
	v := m.view
	switch m.mode {
	case modeFilter:
		v.Prompt = "filter: " + m.input + "▏ (enter keeps it, esc clears it)"
	case modeSend:
		v.Prompt = "send to " + m.target + ": " + m.input + "▏ (enter sends, esc cancels)"
	case modeConfirm:
		v.Prompt = "kill " + m.target + "? (y/n)"
	}
	return v
}
