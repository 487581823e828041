package daemon

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
	"github.com/swarm-dev/swarm/tmux"
)

// How the Regent looks at the agents' screens: through one tmux control-mode client per tmux
// server, attached to the regent session with its output turned off, a capture costs the
// server's work only, not a tmux process. The client never follows the agents' panes: tmux (to
// 3.6a at least) can crash when a pane is respawned or cleared while a control client follows
// its output, and a loop respawns its pane every iteration. Where there is no such client
// (another server, an old tmux), captures run a tmux process as everywhere else.

// controller is a tmux client that can open a control-mode client.
type controller interface {
	Control(session string) (*tmux.Control, error)
}

// A lost control client is tried again after reconnectEvery, twice as long after each attempt
// that fails at once, up to reconnectMax (a server without a regent session, an old tmux).
const (
	reconnectEvery = 2 * time.Second
	reconnectMax   = time.Minute
)

type paneWatch struct {
	r       *daemon
	mu      sync.Mutex
	conns   map[string]*controlConn // by tmux server
	users   map[string]*controlConn // the connection each loop captures through
	stopped bool
}

// controlConn is one control-mode client, or the attempts to have one.
type controlConn struct {
	socket  string
	tm      tmux.Client
	ctl     atomic.Pointer[tmux.Control] // nil while there is none
	lastErr atomic.Value                 // string: why there is none
}

func newPaneWatch(r *daemon) *paneWatch {
	return &paneWatch{r: r, conns: map[string]*controlConn{}, users: map[string]*controlConn{}}
}

// follow returns the tmux client a loop looks at its agent through.
func (pw *paneWatch) follow(m *worker.Machine, name string) tmux.Client {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	c := pw.conns[m.Tmux().Socket()]
	if c == nil {
		c = &controlConn{socket: m.Tmux().Socket(), tm: m.Tmux()}
		c.lastErr.Store("not connected yet")
		pw.conns[c.socket] = c
		go pw.keep(c)
	}
	pw.users[name] = c
	return controlCapture{Client: m.Tmux(), conn: c, events: &pw.r.events}
}

func (pw *paneWatch) unfollow(name string) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	delete(pw.users, name)
}

// keep holds a control client open for as long as a loop on its server is followed, getting
// it back when it is lost.
func (pw *paneWatch) keep(c *controlConn) {
	defer func() {
		pw.mu.Lock()
		delete(pw.conns, c.socket)
		pw.mu.Unlock()
	}()
	ctlr, ok := c.tm.(controller)
	if !ok {
		c.lastErr.Store("this tmux client has no control mode")
		return
	}
	pause := reconnectEvery
	for pw.inUse(c) {
		began := time.Now()
		if err := pw.connect(c, ctlr); err != nil {
			c.lastErr.Store(err.Error())
		}
		if time.Since(began) > 10*time.Second {
			pause = reconnectEvery // it had worked for a while
		}
		time.Sleep(pause)
		pause = min(2*pause, reconnectMax)
	}
}

// connect attaches a control client (output off) to the regent session and serves captures
// through it until it ends.
func (pw *paneWatch) connect(c *controlConn, ctlr controller) error {
	ctl, err := ctlr.Control(regent.Session)
	if err != nil {
		return err
	}
	select {
	case <-ctl.Done():
		return errors.New("tmux refused a control client (tmux 3.2 or later is needed)")
	case <-time.After(100 * time.Millisecond):
	}
	c.ctl.Store(ctl)
	pw.r.say("capturing screens through tmux control mode (server %s)", c.socket)
	<-ctl.Done()
	c.ctl.Store(nil)
	if pw.inUse(c) {
		pw.r.say("tmux control mode lost (server %s); capturing with tmux processes until it is back", c.socket)
	}
	return errors.New("the control client ended (tmux server or regent session gone)")
}

// inUse reports whether any followed loop captures through c (none once the watch stopped).
func (pw *paneWatch) inUse(c *controlConn) bool {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if pw.stopped {
		return false
	}
	for _, u := range pw.users {
		if u == c {
			return true
		}
	}
	return false
}

// stop closes every control client.
func (pw *paneWatch) stop() {
	pw.mu.Lock()
	pw.stopped = true
	conns := make([]*controlConn, 0, len(pw.conns))
	for _, c := range pw.conns {
		conns = append(conns, c)
	}
	pw.mu.Unlock()
	for _, c := range conns {
		if ctl := c.ctl.Load(); ctl != nil {
			ctl.Close()
		}
	}
}

// describe says how screens are captured, for `swarm regent status`.
func (pw *paneWatch) describe() string {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if len(pw.conns) == 0 {
		return "nothing (no loop is followed)"
	}
	var live, lost []string
	for _, c := range pw.conns {
		if c.ctl.Load() != nil {
			live = append(live, c.socket)
		} else {
			lost = append(lost, fmt.Sprintf("%s (%v)", c.socket, c.lastErr.Load()))
		}
	}
	sort.Strings(live)
	sort.Strings(lost)
	var parts []string
	if len(live) > 0 {
		parts = append(parts, "tmux control mode on "+strings.Join(live, ", "))
	}
	if len(lost) > 0 {
		parts = append(parts, "tmux processes on "+strings.Join(lost, "; "))
	}
	return strings.Join(parts, "; ")
}

// controlCapture captures through the server's control client when there is one, and with a
// tmux process otherwise. A client that does not answer is closed, to be connected afresh.
type controlCapture struct {
	tmux.Client
	conn   *controlConn
	events *atomic.Int64
}

func (c controlCapture) Capture(paneID string, historyLines int) (string, error) {
	c.events.Add(1)
	if ctl := c.conn.ctl.Load(); ctl != nil {
		out, err := ctl.Capture(paneID, historyLines)
		if done, err := c.answered(ctl, err); done {
			return out, err
		}
	}
	return c.Client.Capture(paneID, historyLines)
}

// PaneNow asks about a pane through the control client too: a loop asks at every look while
// its agent starts.
func (c controlCapture) PaneNow(paneID string) (tmux.Pane, error) {
	if ctl := c.conn.ctl.Load(); ctl != nil {
		p, err := ctl.PaneNow(paneID)
		if done, err := c.answered(ctl, err); done {
			return p, err
		}
	}
	return c.Client.PaneNow(paneID)
}

// Respawn restarts an agent through the control client too (a loop does at every iteration);
// a command it cannot carry, or a client that is gone, goes to a tmux process.
func (c controlCapture) Respawn(paneID string, s tmux.Spec) (tmux.Pane, error) {
	if ctl := c.conn.ctl.Load(); ctl != nil {
		p, err := ctl.Respawn(paneID, s)
		if done, err := c.answered(ctl, err); done && !errors.Is(err, tmux.ErrUnquotable) {
			return p, err
		}
	}
	return c.Client.Respawn(paneID, s)
}

// Paste types a text through the control client too (a loop's nudges); see typed.
func (c controlCapture) Paste(paneID, text string, bracketed bool) error {
	return c.typed(func(ctl *tmux.Control) error { return ctl.Paste(paneID, text, bracketed) },
		func() error { return c.Client.Paste(paneID, text, bracketed) })
}

// StageBuffer and PasteBuffer go through the control client too (a loop pastes every
// iteration's prompt in these two steps); a text it cannot carry, or no client, goes to a tmux
// process.
func (c controlCapture) StageBuffer(name, text string) error {
	if ctl := c.conn.ctl.Load(); ctl != nil {
		err := ctl.StageBuffer(name, text)
		if done, aerr := c.answered(ctl, err); done && !errors.Is(err, tmux.ErrUnquotable) {
			return aerr
		}
	}
	return c.Client.StageBuffer(name, text)
}

func (c controlCapture) PasteBuffer(paneID, name string, bracketed bool) error {
	return c.typed(func(ctl *tmux.Control) error { return ctl.PasteBuffer(paneID, name, bracketed) },
		func() error { return c.Client.PasteBuffer(paneID, name, bracketed) })
}

// SendKeys presses keys through the control client too (the Enter after each prompt), one
// at a time, each through a tmux process when there is no client.
func (c controlCapture) SendKeys(paneID string, keys ...string) error {
	for _, k := range keys {
		err := c.typed(func(ctl *tmux.Control) error { return ctl.SendKeys(paneID, k) },
			func() error { return c.Client.SendKeys(paneID, k) })
		if err != nil {
			return err
		}
	}
	return nil
}

// typed types into a pane through the control client when there is one, and with a tmux
// process when there is none or it cannot carry what is typed. A client that failed on the
// way may have typed it already: that is an error, not a second try.
func (c controlCapture) typed(viaControl func(*tmux.Control) error, viaProcess func() error) error {
	ctl := c.conn.ctl.Load()
	if ctl == nil {
		return viaProcess()
	}
	err := viaControl(ctl)
	if errors.Is(err, tmux.ErrUnquotable) {
		return viaProcess()
	}
	if done, aerr := c.answered(ctl, err); done {
		return aerr
	}
	return err
}

// answered reports whether the control client's answer stands (err is what to return with
// it); one that did not answer is closed, and the question goes to a tmux process instead.
func (c controlCapture) answered(ctl *tmux.Control, err error) (bool, error) {
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, tmux.ErrNoAnswer):
		ctl.Close()
		return false, nil
	case errors.Is(err, tmux.ErrControlGone):
		return false, nil
	}
	return true, err
}
