package dashboard

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// The dashboard's keys as they are typed: a command (bindings, keytable.go), a line being
// typed (a filter, a line to send) or the answer to a question (kill?).

func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	if k.Keystroke() == "ctrl+c" {
		return tea.Quit
	}
	// Keys typed in quick succession can be read together and come as one message of several
	// runes ("/lp"): each is a key of its own, and the first may change how the next is taken.
	if runes := []rune(k.Text); len(runes) > 1 {
		cmds := make([]tea.Cmd, 0, len(runes))
		for _, r := range runes {
			cmds = append(cmds, m.key(tea.KeyPressMsg{Code: r, Text: string(r), Mod: k.Mod}))
		}
		return tea.Batch(cmds...)
	}
	switch m.mode {
	case modeFilter:
		return m.typeFilter(k)
	case modeSend:
		return m.typeLine(k)
	case modeConfirm:
		m.mode = modeKeys
		if k.String() == "y" || k.String() == "Y" {
			return m.act("kill "+m.target, "killing "+m.target, "killed "+m.target, "kill", m.target)
		}
		m.view.Message = "not killed"
		return nil
	}
	// What the last action did, or why it failed, stays until the next key.
	m.view.Message, m.view.Error = "", ""
	return m.command(k.String())
}

// command carries out a key typed as a command (bindings, keytable.go).
func (m *model) command(key string) tea.Cmd {
	b, ok := bindingFor(key)
	if !ok {
		return nil
	}
	if b.worker {
		if _, ok := m.current(); !ok {
			return nil
		}
	}
	return b.do(m, key)
}

func (m *model) move(key string) tea.Cmd {
	switch key {
	case "up", "k":
		return m.choose(m.view.Selected - 1)
	case "down", "j":
		return m.choose(m.view.Selected + 1)
	case "home":
		return m.choose(0)
	}
	return m.choose(len(m.view.Rows) - 1)
}

func (m *model) toggleHelp(string) tea.Cmd {
	m.view.Help = !m.view.Help
	return nil
}

func (m *model) startFilter(string) tea.Cmd {
	m.mode, m.input = modeFilter, m.view.Filter
	return nil
}

func (m *model) nextSort(string) tea.Cmd {
	m.view.Sort = m.view.Sort.next()
	m.view.Message = "sorted by " + m.view.Sort.String()
	return m.applyFilter()
}

func (m *model) toggleLogs(string) tea.Cmd {
	m.view.Logs = !m.view.Logs
	m.view.Screen = nil
	return m.refresh()
}

// attach runs swarm attach on the selected worker, the dashboard's terminal handed over.
func (m *model) attach(string) tea.Cmd {
	r, _ := m.current()
	if !r.Tmux {
		m.view.Message = r.Name + " has no tmux window; l shows its output"
		return nil
	}
	return m.exec(m.data.Attach(r.Name), func(err error) tea.Msg {
		return actionMsg{text: "back from " + r.Name, failed: "could not attach to " + r.Name, err: err}
	})
}

func (m *model) pauseResume(key string) tea.Cmd {
	r, _ := m.current()
	if !r.Loop {
		m.view.Message = r.Name + " is not a loop: nothing to pause or resume"
		return nil
	}
	if key == "p" {
		return m.act("pause "+r.Name, "pausing "+r.Name, "paused "+r.Name, "ralph", "pause", r.Name)
	}
	return m.act("resume "+r.Name, "resuming "+r.Name, "resumed "+r.Name, "ralph", "resume", r.Name)
}

func (m *model) askKill(string) tea.Cmd {
	r, _ := m.current()
	m.mode, m.target = modeConfirm, r.Name
	return nil
}

func (m *model) startSend(string) tea.Cmd {
	r, _ := m.current()
	m.mode, m.target, m.input = modeSend, r.Name, ""
	return nil
}

func (m *model) current() (Row, bool) {
	if m.view.Selected < 0 || m.view.Selected >= len(m.view.Rows) {
		return Row{}, false
	}
	return m.view.Rows[m.view.Selected], true
}

// escape backs out one step: the help closes, else the filter kept is cleared.
func (m *model) escape() tea.Cmd {
	if m.view.Help {
		m.view.Help = false
		return nil
	}
	if m.view.Filter == "" {
		return nil
	}
	m.view.Filter = ""
	return m.applyFilter()
}

// act runs a swarm command beside the model; doing is shown meanwhile, done after, or why
// what could not be done.
func (m *model) act(what, doing, done string, args ...string) tea.Cmd {
	m.view.Message = doing + "…"
	data := m.data
	return func() tea.Msg {
		if err := data.Run(args...); err != nil {
			return actionMsg{failed: "could not " + what, err: err}
		}
		return actionMsg{text: done}
	}
}

func (m *model) typeFilter(k tea.KeyPressMsg) tea.Cmd {
	switch k.Code {
	case tea.KeyEscape:
		m.mode, m.view.Filter = modeKeys, ""
	case tea.KeyEnter:
		m.mode = modeKeys
		return nil
	default:
		m.input = edit(m.input, k)
		m.view.Filter = m.input
	}
	return m.applyFilter()
}

func (m *model) typeLine(k tea.KeyPressMsg) tea.Cmd {
	switch k.Code {
	case tea.KeyEscape:
		m.mode = modeKeys
		m.view.Message = "nothing sent"
	case tea.KeyEnter:
		m.mode = modeKeys
		return m.act("send to "+m.target, "sending to "+m.target, "sent to "+m.target, "send", m.target, "--", m.input)
	default:
		m.input = edit(m.input, k)
	}
	return nil
}

// edit applies a key to a line being typed.
func edit(line string, k tea.KeyPressMsg) string {
	switch {
	case k.Code == tea.KeyBackspace:
		if r := []rune(line); len(r) > 0 {
			return string(r[:len(r)-1])
		}
		return line
	case k.Keystroke() == "ctrl+u":
		return ""
	case k.Text != "" && k.Mod&^tea.ModShift == 0:
		return line + k.Text
	}
	return line
}

// paste adds pasted text to a line being typed; pasted outside a line, it is no command.
func (m *model) paste(p tea.PasteMsg) tea.Cmd {
	// A line being typed is one line: pasted line breaks become spaces.
	text := strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(p.Content)
	switch m.mode {
	case modeFilter:
		m.input += text
		m.view.Filter = m.input
		return m.applyFilter()
	case modeSend:
		m.input += text
	}
	return nil
}
