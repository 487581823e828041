package dashboard

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// What the dashboard is told and what it may ask: the rows come made, in words, from the
// outside world behind Data; nothing in this package reads a state directory or tmux.

// Data is the dashboard's outside world.
type Data interface {
	// Snapshot reads every worker's row.
	Snapshot() Snapshot
	// Screen is the last n lines of a worker's screen (logs: of its log).
	Screen(r Row, n int, logs bool) []string
	// Events are a loop's last n events, Regent lines shown as such (see regentMark).
	Events(r Row, n int) []string
	// Run runs a swarm command (ralph pause w1, kill w1, ...): its error is what it said last.
	Run(args ...string) error
	// Attach is what attaches the terminal to a worker's window; its error says why it could not.
	Attach(name string) tea.ExecCommand
}

// Snapshot is what the dashboard read in one look: every worker's row.
type Snapshot struct {
	Rows   []Row
	Regent int       // the Regent's pid; 0 when none runs
	Now    time.Time // when it was read, in the zone times are shown in
	Err    string    // why the workers could not be read, when they could not
	Warn   string    // what could not be learnt about them (a tmux server not answering)
}

// Tone is how a state reads at a glance, and so how it is coloured.
type Tone int

const (
	ToneQuiet Tone = iota // idle, paused, stopped: nothing happening
	ToneBusy              // working, starting
	ToneGood              // done
	ToneWarn              // blocked, waiting for a limit, backing off: may need a person
	ToneBad               // failed
)

// Row is one worker as the dashboard shows it.
type Row struct {
	// Name is how commands name the worker: NAME, or NAME@HOST for one on another host.
	Name string
	// Host is the other host the worker runs on, "" for this machine.
	Host      string
	Kind      string // loop, chain, agent (swarm agent), plain (not a loop)
	State     string // in words: working, idle, blocked: trust-folder, backoff 8s, done, ...
	Tone      Tone
	Iteration string    // "3/20"; "-" for a worker that is no loop
	Changed   time.Time // the screen's last change; zero when not known
	Failures  int       // the loop's failed iterations; -1 for no loop
	Cost      *float64  // what the loop cost so far, when known
	Pace      string    // the plan's limits as the agent last told them, in words; "" when not told
	Tmux      bool      // has a tmux window (a screen to preview, to attach to)
	Loop      bool      // a ralph loop: pause, resume and events apply
	Tags      []string
	Started   time.Time // when the worker was started, for the order by start

	// Ref is what the Data made the row from (a worker's record), for reading its screen
	// later; the dashboard hands it back to Screen untouched.
	Ref any `json:"-"`
}

// regentMark starts a Regent line among a loop's events as Data gives them; such a line is
// coloured as the Regent's.
const regentMark = "🛡️  Regent: "
