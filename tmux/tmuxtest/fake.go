package tmuxtest

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/swarm-dev/swarm/tmux"
)

var _ tmux.Client = (*Fake)(nil)

// FakePane is one pane of a Fake. Hooks receive it while the Fake is locked and may read and
// change it freely; everybody else goes through the Fake's methods.
type FakePane struct {
	ID         string
	PID        int
	Dead       bool
	ExitStatus int
	HasStatus  bool
	Session    string
	WindowIdx  string
	WindowName string

	// Spec is what the program running (or last run) in the pane was started with.
	Spec tmux.Spec
	// Starts counts the programs started in the pane: 1 after NewWindow, +1 per Respawn.
	Starts int
	// Screen is the visible text, top line first.
	Screen []string
	// History is the scrollback above Screen, oldest line first.
	History []string
	// Pastes and Keys record, in order, what was pasted into and sent to this pane.
	Pastes []string
	Keys   []string
	// Revive is set by ReviveOnDeath.
	Revive bool
	// SwarmID is the pane's @swarm_id option.
	SwarmID string
}

// SetScreen replaces the visible text; lines are separated by "\n".
func (p *FakePane) SetScreen(text string) {
	p.Screen = strings.Split(strings.TrimRight(text, "\n"), "\n")
}

// ScreenText is the visible text as Capture returns it without history.
func (p *FakePane) ScreenText() string { return strings.Join(p.Screen, "\n") }

// Exit ends the pane's program with code, as tmux reports it with remain-on-exit.
func (p *FakePane) Exit(code int) {
	if p.Dead {
		return
	}
	p.Dead, p.HasStatus, p.ExitStatus = true, true, code
}

// pane returns what tmux would report.
func (p *FakePane) pane() tmux.Pane {
	return tmux.Pane{
		ID: p.ID, PID: p.PID, Dead: p.Dead, ExitStatus: p.ExitStatus, HasStatus: p.HasStatus,
		Session: p.Session, WindowIdx: p.WindowIdx, WindowName: p.WindowName, SwarmID: p.SwarmID,
	}
}

func (p *FakePane) clone() FakePane {
	c := *p
	c.Spec.Env = append([]string(nil), p.Spec.Env...)
	c.Spec.Argv = append([]string(nil), p.Spec.Argv...)
	c.Screen = append([]string(nil), p.Screen...)
	c.History = append([]string(nil), p.History...)
	c.Pastes = append([]string(nil), p.Pastes...)
	c.Keys = append([]string(nil), p.Keys...)
	return c
}

// Input is one thing delivered to a pane: a paste (Paste true) or a key.
type Input struct {
	PaneID    string
	Paste     bool
	Bracketed bool
	Text      string
}

// Fake is an in-memory tmux server. It is safe for concurrent use. The hooks must be set
// before the Fake is shared with other goroutines; they are called with the Fake locked, so
// they must act on the pane they are given and never call the Fake's methods.
type Fake struct {
	// SocketName is what Socket returns (default "fake").
	SocketName string
	// OnStart runs whenever a program starts in a pane (NewWindow, Respawn): the place to
	// draw the program's first screen.
	OnStart func(p *FakePane, spec tmux.Spec)
	// OnPaste runs after text was pasted into a live pane.
	OnPaste func(p *FakePane, text string)
	// OnKeys runs for every key sent to a live pane, after it was recorded.
	OnKeys func(p *FakePane, key string)

	mu       sync.Mutex
	panes    map[string]*FakePane
	nextID   int
	nextPID  int
	windows  map[string]int
	inputs   []Input
	sessions []string // sessions removed by KillSessionIfEmpty
	// serverKills counts KillServer calls.
	serverKills int
	messages    []string // what Message showed
	buffers     map[string]string
}

// Message records text as shown to the server's clients (one, in the fake).
func (f *Fake) Message(text string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.messages = append(f.messages, text)
	return 1, nil
}

// Messages are the texts Message showed, in order.
func (f *Fake) Messages() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string{}, f.messages...)
}

// New returns an empty fake server. Pane IDs start at %0 and PIDs at 1000, both increasing,
// so a PID is never reused.
func New() *Fake {
	return &Fake{panes: map[string]*FakePane{}, nextPID: 1000, windows: map[string]int{}}
}

func (f *Fake) lazyInit() {
	if f.panes == nil {
		f.panes = map[string]*FakePane{}
		f.windows = map[string]int{}
		if f.nextPID == 0 {
			f.nextPID = 1000
		}
	}
}

// Socket returns the socket name.
func (f *Fake) Socket() string {
	if f.SocketName == "" {
		return "fake"
	}
	return f.SocketName
}

func (f *Fake) start(p *FakePane, s tmux.Spec) {
	f.nextPID++
	p.PID = f.nextPID
	p.Dead, p.HasStatus, p.ExitStatus = false, false, 0
	p.Spec = s
	p.Spec.Env = append([]string(nil), s.Env...)
	p.Spec.Argv = append([]string(nil), s.Argv...)
	p.Starts++
	if s.ID != "" {
		p.SwarmID = s.ID
	}
	// A new program draws its own screen; what the old one left is gone from view.
	p.Screen = nil
	if f.OnStart != nil {
		f.OnStart(p, s)
	}
}

// NewWindow opens a pane in a new window of s.Session and starts the program in it.
func (f *Fake) NewWindow(s tmux.Spec) (tmux.Pane, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lazyInit()
	if len(s.Argv) == 0 {
		return tmux.Pane{}, errors.New("no command to run")
	}
	p := &FakePane{
		ID:         fmt.Sprintf("%%%d", f.nextID),
		Session:    s.Session,
		WindowIdx:  fmt.Sprint(f.windows[s.Session]),
		WindowName: s.Window,
	}
	f.nextID++
	f.windows[s.Session]++
	f.panes[p.ID] = p
	f.start(p, s)
	return p.pane(), nil
}

// Respawn starts a new program in an existing pane, killing what still runs there (as
// respawn-pane -k does), and keeps the pane ID.
func (f *Fake) Respawn(paneID string, s tmux.Spec) (tmux.Pane, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.panes[paneID]
	if !ok {
		return tmux.Pane{}, tmux.ErrNoPane
	}
	if s.ClearHistory {
		p.History = nil
	}
	f.start(p, s)
	return p.pane(), nil
}

// Panes lists every pane.
func (f *Fake) Panes() (map[string]tmux.Pane, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]tmux.Pane{}
	for id, p := range f.panes {
		out[id] = p.pane()
	}
	return out, nil
}

// Pane returns one pane, or tmux.ErrNoPane.
func (f *Fake) Pane(paneID string) (tmux.Pane, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.panes[paneID]
	if !ok {
		return tmux.Pane{}, tmux.ErrNoPane
	}
	return p.pane(), nil
}

// PaneNow is Pane: a fake pane's exit status is known as soon as it is dead.
func (f *Fake) PaneNow(paneID string) (tmux.Pane, error) { return f.Pane(paneID) }

// Capture returns the screen, preceded by up to historyLines lines of scrollback (all of it
// when historyLines < 0), with a final newline as tmux prints it. Dead panes keep their text.
func (f *Fake) Capture(paneID string, historyLines int) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.panes[paneID]
	if !ok {
		return "", tmux.ErrNoPane
	}
	var lines []string
	switch {
	case historyLines < 0:
		lines = append(lines, p.History...)
	case historyLines > 0:
		from := len(p.History) - historyLines
		if from < 0 {
			from = 0
		}
		lines = append(lines, p.History[from:]...)
	}
	lines = append(lines, p.Screen...)
	if len(lines) == 0 {
		return "", nil
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// Paste records text as pasted into the pane. Like the real client, an empty text sends
// nothing.
func (f *Fake) Paste(paneID, text string, bracketed bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.panes[paneID]
	if !ok {
		return tmux.ErrNoPane
	}
	if text == "" {
		return nil
	}
	p.Pastes = append(p.Pastes, text)
	f.inputs = append(f.inputs, Input{PaneID: paneID, Paste: true, Bracketed: bracketed, Text: text})
	if !p.Dead && f.OnPaste != nil {
		f.OnPaste(p, text)
	}
	return nil
}

// SendKeys records each key and hands it to OnKeys.
func (f *Fake) SendKeys(paneID string, keys ...string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.panes[paneID]
	if !ok {
		return tmux.ErrNoPane
	}
	for _, k := range keys {
		p.Keys = append(p.Keys, k)
		f.inputs = append(f.inputs, Input{PaneID: paneID, Text: k})
		if !p.Dead && f.OnKeys != nil {
			f.OnKeys(p, k)
		}
	}
	return nil
}

// KillPane removes the pane; a missing pane is not an error, as with the real client.
func (f *Fake) KillPane(paneID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.panes, paneID)
	return nil
}

// KillSessionIfEmpty removes the session's panes when none of them is live.
func (f *Fake) KillSessionIfEmpty(session string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ids []string
	for id, p := range f.panes {
		if p.Session != session {
			continue
		}
		if !p.Dead {
			return nil
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil
	}
	for _, id := range ids {
		delete(f.panes, id)
	}
	f.sessions = append(f.sessions, session)
	return nil
}

// AttachArgs returns a recognisable argv; nothing runs it.
func (f *Fake) AttachArgs(paneID string) []string {
	return []string{"-L", f.Socket(), "attach-session", "-t", paneID}
}

// ReviveOnDeath is recorded on the pane; the fake does not restart programs by itself.
func (f *Fake) ReviveOnDeath(paneID string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.panes[paneID]
	if !ok {
		return tmux.ErrNoPane
	}
	p.Revive = true
	return nil
}

// KillServer ends every pane's program and removes every pane. Like a new tmux server, the
// next pane is %0 again.
func (f *Fake) KillServer() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lazyInit()
	for id := range f.panes {
		delete(f.panes, id)
	}
	f.nextID = 0
	f.windows = map[string]int{}
	f.serverKills++
	return nil
}

// InsideServer is false: tests are never run from inside the fake server.
func (f *Fake) InsideServer() bool { return false }

// SwitchClient fails: there is no client to switch.
func (f *Fake) SwitchClient(paneID string) error { return errors.New("no tmux client") }

// Bin names the program an attach would run.
func (f *Fake) Bin() string { return "tmux" }
