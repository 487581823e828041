package ralph

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"time"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/cost"
	"github.com/swarm-dev/swarm/state"
)

// TimeFormat is how loop times are stored: RFC 3339 with microseconds and the zone, so a
// status read under another TZ (or on another machine) tells the same time.
const TimeFormat = "2006-01-02T15:04:05.000000Z07:00"

// legacyTimeFormat is how older state files (and the Python original) stored times: local
// time without a zone.
const legacyTimeFormat = "2006-01-02T15:04:05.999999"

// State is one loop's persistent state: $SWARM_DIR/ralph/<name>/state.json.
type State struct {
	WorkerName           string  `json:"worker_name"`
	PromptFile           string  `json:"prompt_file"`
	MaxIterations        int     `json:"max_iterations"`
	CurrentIteration     int     `json:"current_iteration"`
	Status               Status  `json:"status"`
	Started              string  `json:"started"`
	LastIterationStarted string  `json:"last_iteration_started"`
	ConsecutiveFailures  int     `json:"consecutive_failures"`
	TotalFailures        int     `json:"total_failures"`
	DonePattern          *string `json:"done_pattern"`
	// DonePatterns are all the --done-pattern given (DonePattern is the first); the built-in
	// markers count too unless NoBuiltinMarkers.
	DonePatterns      []string `json:"done_patterns,omitempty"`
	NoBuiltinMarkers  bool     `json:"no_builtin_markers,omitempty"`
	InactivityTimeout int      `json:"inactivity_timeout"`

	MonitorPID   int    `json:"monitor_pid"`
	ExitReason   string `json:"exit_reason,omitempty"`
	Phase        Phase  `json:"phase"`
	PromptMode   string `json:"prompt_mode"`
	ReadyPattern string `json:"ready_pattern,omitempty"`
	ReadyTimeout int    `json:"ready_timeout"`
	BlockedBy    string `json:"blocked_by,omitempty"`
	// UnknownScreen is the screen kept when the agent never got ready on one swarm does not
	// know (no input prompt, no known dialog), until it is seen ready again.
	UnknownScreen    string `json:"unknown_screen,omitempty"`
	LastScreenChange string `json:"last_screen_change,omitempty"`
	LastExitCode     *int   `json:"last_exit_code,omitempty"`
	DoneBaseline     int    `json:"done_baseline"`
	// PasteBuffer names the tmux buffer the prompt was staged in before its paste: while it
	// exists the paste has not happened, once it is gone it has (see the driver's
	// promptDelivery.paste).
	PasteBuffer  string `json:"paste_buffer,omitempty"`
	BackoffUntil string `json:"backoff_until,omitempty"`
	Ended        string `json:"ended,omitempty"`

	// NeedsPermission is what the agent asks permission for (its own signal), while it waits.
	NeedsPermission string `json:"needs_permission,omitempty"`
	// NeedsPersonSince is when the loop came to need a person (state_need.go).
	NeedsPersonSince string `json:"needs_person_since,omitempty"`
	// LastFailure is the last iteration that failed, with the agent's last lines (failure.go).
	LastFailure *Failure `json:"last_failure,omitempty"`
	// NoAgentSignals: the agent is not asked for its own signals (--no-agent-signals); the
	// screen alone tells what it does.
	NoAgentSignals bool `json:"no_agent_signals,omitempty"`
	// PermissionHoldSeconds is how long swarm's permission hook holds a request for an
	// answer (--permission-hold; 0: not at all, the dialog shows at once); nil:
	// DefaultPermissionHold.
	PermissionHoldSeconds *int `json:"permission_hold,omitempty"`
	// answered is the answer a person gave to what the agent waited for, in the change that
	// records it (never saved): the change tells it as the need's answer.
	answered *personAnswer

	// Time spent paused, so the loop's running time leaves it out: the seconds of pauses that
	// ended, and when the current one began.
	PausedSeconds float64 `json:"paused_seconds,omitempty"`
	PausedAt      string  `json:"paused_at,omitempty"`

	// Context watching (--max-context): the limit in percent, the use last seen on screen, and
	// whether this iteration's agent was asked to wrap up.
	MaxContext       int  `json:"max_context,omitempty"`
	ContextUsed      int  `json:"context_used,omitempty"`
	ContextNudgeSent bool `json:"context_nudge_sent,omitempty"`

	// The stagnation breaker: its limit (0: off), the worker's checkout as the last iteration
	// left it, and how many iterations in a row changed nothing.
	StagnationLimit    int    `json:"stagnation_limit,omitempty"`
	GitFingerprint     string `json:"git_fingerprint,omitempty"`
	StagnantIterations int    `json:"stagnant_iterations,omitempty"`

	// Completion checkers (--check) and hooks (--hook), with their time limits in seconds (0:
	// the defaults); the signals and checker answers of the iteration that ended the loop.
	Checks       []string      `json:"checks,omitempty"`
	CheckTimeout int           `json:"check_timeout,omitempty"`
	Hooks        []config.Hook `json:"hooks,omitempty"`
	HookTimeout  int           `json:"hook_timeout,omitempty"`
	Signals      []string      `json:"signals,omitempty"`
	LastChecks   []CheckResult `json:"last_checks,omitempty"`

	// RunID names this loop in iterations.jsonl; Finalized: its end was acted on (the
	// end-of-loop hook ran, summary.md was written), so a new monitor does not do it again.
	RunID     string `json:"run_id,omitempty"`
	ChainStep int    `json:"chain_step,omitempty"` // the chain step this loop state belongs to
	Finalized bool   `json:"finalized,omitempty"`
	// Agent is the agent's program name and WorkDir the worker's directory, as the loop began:
	// what hooks and iterations.jsonl are told even once the worker's record is gone.
	Agent   string `json:"agent,omitempty"`
	WorkDir string `json:"work_dir,omitempty"`

	// Cost: the budget (--max-cost, USD; 0: none), price overrides, and what the iterations
	// whose token use is known have used and cost so far. AgentSession is the session id the
	// current iteration's agent was given, to find its own transcript by; AgentTokenSum the
	// digest of the token its signals are tied to it by (see signals_tie.go).
	MaxCost        float64     `json:"max_cost,omitempty"`
	Pricing        cost.Prices `json:"pricing,omitempty"`
	CostUSD        float64     `json:"cost_usd,omitempty"`
	Tokens         cost.Usage  `json:"tokens"`
	CostIterations int         `json:"cost_iterations,omitempty"`
	CostCountedFor int         `json:"cost_counted_for,omitempty"` // the last iteration added to the totals
	AgentSession   string      `json:"agent_session,omitempty"`
	AgentTokenSum  string      `json:"agent_token_sum,omitempty"`

	// A usage limit: how long to wait when its reset is not known (seconds; 0: the
	// default), and while waiting, until when and what the agent said.
	LimitWait    int    `json:"limit_wait,omitempty"`
	LimitMargin  int    `json:"limit_margin,omitempty"`
	WaitingUntil string `json:"waiting_until,omitempty"`
	WaitingFor   string `json:"waiting_for,omitempty"`
	WaitingReset string `json:"waiting_reset,omitempty"` // when the limit resets, when known
	Unattended          // the plan's limits and what is refused unasked (state_unattended.go)
	// TmuxSilentSince is when the loop began to wait for its tmux server, which does not
	// answer, to start the next iteration; "" while it does not wait so.
	TmuxSilentSince string `json:"tmux_silent_since,omitempty"`

	// Waited is what the loop waited (backoffs, usage limits, a person) since its last
	// iteration's record, which the next record takes; PersonSince is when the agent began to
	// wait for a person (BlockedBy, NeedsPermission), while it does.
	Waited      *Waits `json:"waited,omitempty"`
	PersonSince string `json:"person_since,omitempty"`

	Supervision          *SupervisionConfig `json:"regent,omitempty"`
	Notify               *config.Notify     `json:"notify,omitempty"` // where its notifications go
	IterationStartCommit string             `json:"iteration_start_commit,omitempty"`

	// ConfigFiles are the configuration files the loop was started under, applied or ignored
	// (null: not recorded, a loop started by an older swarm).
	ConfigFiles []config.Source `json:"config_files"`
}

// EffectiveCheckTimeout is how long one checker may run.
func (st *State) EffectiveCheckTimeout() time.Duration {
	if st.CheckTimeout > 0 {
		return time.Duration(st.CheckTimeout) * time.Second
	}
	return DefaultCheckTimeout
}

// EffectiveHookTimeout is how long one hook may run.
func (st *State) EffectiveHookTimeout() time.Duration {
	if st.HookTimeout > 0 {
		return time.Duration(st.HookTimeout) * time.Second
	}
	return DefaultHookTimeout
}

// ErrNoLoop means the worker has no loop state.
var ErrNoLoop = errors.New("no ralph loop state")

// Load reads the state without locking (writes are atomic renames).
func (d Dir) Load() (*State, error) {
	var st State
	if err := state.ReadJSON(d.StatePath(), &st); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, ErrNoLoop
		}
		return nil, err
	}
	d.honourKill(&st, time.Now())
	return &st, nil
}

// Create writes a new loop state, replacing any old one.
func (d Dir) Create(st *State) error {
	if err := os.MkdirAll(d.Path, 0o700); err != nil {
		return err
	}
	l, err := state.AcquireLock(d.lockPath())
	if err != nil {
		return err
	}
	defer l.Unlock()
	// A new loop is not the one an unrecorded kill was meant for.
	_ = os.Remove(d.killMarkPath())
	return state.WriteJSON(d.StatePath(), st)
}

// Update re-reads the state under the loop lock, applies fn and saves it when fn returns nil.
// Everyone who changes a loop (monitor, pause, resume, kill) goes through here or Transition,
// so no writer overwrites another's change with a stale copy.
func (d Dir) Update(fn func(*State) error) (*State, error) {
	return d.change(fn, state.WriteJSON)
}

// Note is Update for what only describes the running agent (how far its prompt got, when its
// screen last moved): written without waiting for the disk, several times an iteration. A
// crash of the machine that loses it ends that agent too; a crash of swarm loses nothing.
func (d Dir) Note(fn func(*State) error) (*State, error) {
	return d.change(fn, state.ReplaceJSON)
}

// change applies fn to the state under the loop lock and saves the result with write.
func (d Dir) change(fn func(*State) error, write func(string, any) error) (*State, error) {
	return d.Locked(func(st *State) error {
		was := *st
		before, _ := json.Marshal(st)
		if err := fn(st); err != nil {
			return err
		}
		if err := writeChanged(d.StatePath(), before, st, write); err != nil {
			return err
		}
		d.tellChange(&was, st, Decision{})
		return nil
	})
}

// writeChanged writes v with write unless it is what before holds (v as JSON before the
// update): an update that changed nothing costs no write (a durable one waits for the disk
// twice).
func writeChanged(path string, before []byte, v any, write func(string, any) error) error {
	if after, err := json.Marshal(v); err == nil && before != nil && bytes.Equal(before, after) {
		return nil
	}
	return write(path, v)
}

// locked reads the state under the loop lock and hands it to fn, still under the lock.
func (d Dir) Locked(fn func(*State) error) (*State, error) {
	l, err := state.AcquireLock(d.lockPath())
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	var st State
	if err := state.ReadJSON(d.StatePath(), &st); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, ErrNoLoop
		}
		return nil, err
	}
	d.settleKill(&st, time.Now())
	return &st, fn(&st)
}

// WithLock runs fn while holding the loop lock, for actions that must not interleave with a
// status change (starting an agent, releasing the monitor lock).
func (d Dir) WithLock(fn func() error) error {
	l, err := state.AcquireLock(d.lockPath())
	if err != nil {
		return err
	}
	defer l.Unlock()
	return fn()
}

// Apply is the loop's one transition: it makes a decision's changes to the state and writes
// its events to iterations.log together, under the loop lock, so that the state and the log
// never tell different stories.
func (d Dir) Apply(now time.Time, dec Decision) (*State, error) {
	return d.ApplyThen(now, dec, nil)
}

// ApplyThen is Apply with then run under the loop lock once the decision is recorded (its
// state and its events written): what the driver says of the decision is in its log before a
// reader that takes the lock (ralph logs, see Dir.Settled) can see the state without it.
func (d Dir) ApplyThen(now time.Time, dec Decision, then func()) (*State, error) {
	st, _, err := d.transition(now, func(*State) (Decision, error) { return dec, nil }, then)
	return st, err
}

// Settled waits, at most wait, for a decision being recorded to be wholly written (state,
// events and what the driver says of it), so that a reader does not find the one without the
// others. It reports whether it did not have to give up.
func (d Dir) Settled(wait time.Duration) bool {
	l, ok, err := state.LockWithin(d.lockPath(), wait)
	if err != nil || !ok {
		return false
	}
	l.Unlock()
	return true
}

// Transition decides on the state as it is under the loop lock and applies the decision, for
// changes that depend on the current state (a pause, a resume). A decision that fails is not
// applied; its error is returned. A decision that changes nothing of the state (one that only
// logs, or none at all) costs no write.
func (d Dir) Transition(now time.Time, decide func(*State) (Decision, error)) (*State, Decision, error) {
	return d.transition(now, decide, nil)
}

// transition is Transition with then run under the lock once the decision is recorded.
func (d Dir) transition(now time.Time, decide func(*State) (Decision, error), then func()) (*State, Decision, error) {
	var dec Decision
	st, err := d.Locked(func(st *State) error {
		var err error
		if dec, err = decide(st); err != nil {
			return err
		}
		was := *st
		before, _ := json.Marshal(st)
		dec.applyTo(st, now)
		if err := writeChanged(d.StatePath(), before, st, state.WriteJSON); err != nil {
			// Not logged either: the decision is taken again, and logged then, once the
			// state can be written (a full disk), and its events are not told twice.
			return err
		}
		d.tellChange(&was, st, dec)
		for i, e := range dec.Events {
			if err := d.LogEvent(now, e.Kind, e.Text); err != nil {
				// The state holds the decision now, so it is not taken again: the events it
				// could not log are handed back, to be logged once there is room.
				return &UnloggedError{At: now, Events: dec.Events[i:], Err: err}
			}
		}
		if then != nil {
			then()
		}
		return nil
	})
	return st, dec, err
}

func (dec Decision) applyTo(st *State, now time.Time) {
	if r := dec.Stagnation; r != nil {
		st.GitFingerprint, st.StagnantIterations = r.Fingerprint, r.Count
	}
	if c := dec.Context; c != nil {
		st.ContextUsed, st.ContextNudgeSent = c.Used, st.ContextNudgeSent || c.Nudged
	}
	if dec.Status != "" {
		st.Status = dec.Status
	}
	if dec.Verdict != nil {
		st.LastChecks = dec.Verdict
	}
	if dec.Ended && dec.Signals != nil {
		st.Signals = dec.Signals
	}
	if dec.ExitReason != "" {
		st.ExitReason = dec.ExitReason
	}
	if dec.ClearExitReason {
		st.ExitReason, st.Ended, st.Finalized, st.Signals = "", "", false, nil
	}
	if dec.MaxIterations > 0 {
		st.MaxIterations = dec.MaxIterations
	}
	if dec.Phase != "" {
		st.Phase = dec.Phase
		if dec.Phase != PhaseWaiting {
			st.WaitingUntil, st.WaitingFor, st.WaitingReset = "", "", ""
		}
	}
	if !dec.WaitUntil.IsZero() {
		st.WaitingUntil, st.WaitingFor, st.WaitingReset = dec.WaitUntil.Format(TimeFormat), dec.WaitFor, ""
		if !dec.WaitReset.IsZero() {
			st.WaitingReset = dec.WaitReset.Format(TimeFormat)
		}
	}
	if dec.Ended {
		st.Ended = now.Format(TimeFormat)
	}
	st.needEndsWith(dec)
	if dec.Unpause && st.PausedAt != "" {
		if at := ParseTime(st.PausedAt); !at.IsZero() && now.After(at) {
			st.PausedSeconds += now.Sub(at).Seconds()
		}
		st.PausedAt = ""
	}
	if dec.PausedNow && st.PausedAt == "" {
		st.PausedAt = now.Format(TimeFormat)
	}
	st.keepFailure(dec, now)
	if dec.SetCounters {
		st.ConsecutiveFailures = dec.ConsecutiveFailures
		st.TotalFailures = dec.TotalFailures
		st.LastExitCode = dec.LastExitCode
	}
	if dec.Backoff > 0 && st.Phase == PhaseBackoff {
		st.BackoffUntil = now.Add(dec.Backoff).Format(TimeFormat)
	}
}

// MonitorAlive reports whether a monitor holds this loop's monitor lock.
func (d Dir) MonitorAlive() bool { return state.IsLocked(d.MonitorLockPath()) }
