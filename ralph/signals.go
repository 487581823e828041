package ralph

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
)

// The agents' own signals: Claude Code runs hooks at the moments of its session (its turn
// ended, an API error ended it, it asks for a permission, ...), Codex runs a notify program
// when its turn is complete. swarm gives each iteration's agent a recorder for them (see
// signals_launch.go) that appends one line per event to the loop's events file; the loop
// reads them as facts, and OnSignal says what each one means. The screen stays the source
// for agents that give no signals, and for what comes before them (first-run dialogs).

// The events, as the recorder names them (Claude Code's hook names; a Codex turn that is
// complete is a Stop).
const (
	EventSessionStart     = "SessionStart"
	EventUserPromptSubmit = "UserPromptSubmit"
	EventStop             = "Stop"
	EventStopFailure      = "StopFailure"
	EventNotification     = "Notification"
	EventPreCompact       = "PreCompact"
	EventSessionEnd       = "SessionEnd"
)

// ClaudeHookEvents are the hooks swarm asks Claude Code to run.
var ClaudeHookEvents = []string{EventSessionStart, EventUserPromptSubmit, EventStop, EventStopFailure,
	EventNotification, EventPreCompact, EventSessionEnd}

// AgentEvent is one event an agent reported, as the loop's events file holds it.
type AgentEvent struct {
	At         string `json:"at"`
	Agent      string `json:"agent"` // claude, codex, qwen, copilot, gemini or opencode
	Event      string `json:"event"`
	Session    string `json:"session,omitempty"`
	Transcript string `json:"transcript,omitempty"`
	Error      string `json:"error,omitempty"` // StopFailure: rate_limit, server_error, ...
	Kind       string `json:"kind,omitempty"`  // Notification: permission_prompt, idle_prompt, ...
	// Message is a Notification's text, a StopFailure's details, or else the agent's last answer.
	Message string `json:"message,omitempty"`
	// Input is the start of what a Codex turn answered (its first input message, on one line):
	// Codex reports its side tasks' turns (a title for the session) too, on threads of their own.
	Input string `json:"input,omitempty"`
	// Mode is the permission mode a PermissionRequest was asked in: bypassPermissions for one
	// that skipping permissions does not skip (see dangerous.go).
	Mode string `json:"mode,omitempty"`
	// Token is the token the recorder was given with the agent's hooks (see signals_tie.go).
	Token string `json:"token,omitempty"`
}

// inputKept is how much of a turn's input an event keeps: enough to tell the prompt's turn.
const inputKept = 200

// ParseAgentEvent reads what an agent hands its recorder: Claude Code's hook input (JSON on
// stdin, see ReadClaudeEvent) or Codex's notify argument (JSON; one argument, which the
// system bounds); ok is false for anything else.
func ParseAgentEvent(agent string, raw []byte, now time.Time) (AgentEvent, bool) {
	if agent != "codex" {
		return ReadAgentEvent(agent, bytes.NewReader(raw), now)
	}
	var in map[string]any
	if json.Unmarshal(raw, &in) != nil {
		return AgentEvent{}, false
	}
	str := func(k string) string { s, _ := in[k].(string); return s }
	if str("type") != "agent-turn-complete" {
		return AgentEvent{}, false
	}
	e := AgentEvent{At: now.UTC().Format(time.RFC3339Nano), Agent: agent, Event: EventStop, Session: str("thread-id"),
		Message: str("last-assistant-message")}
	if in, _ := in["input-messages"].([]any); len(in) > 0 {
		first, _ := in[0].(string)
		if e.Input = words.OneLine(first); len(e.Input) > inputKept {
			e.Input = e.Input[:inputKept]
		}
	}
	return e, true
}

// FirstOf is the first of s that is not blank.
func FirstOf(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

// PromptThread tells the thread of the prompt's turn among a Codex agent's: the one already
// known, or the first whose input is the prompt. ok is false for an event of another thread
// (a side task's) or of none known yet.
func PromptThread(e AgentEvent, prompt, known string) (thread string, ok bool) {
	switch {
	case e.Agent != "codex" || e.Session == "":
		return known, true
	case known != "":
		return known, e.Session == known
	case e.Input != "" && strings.HasPrefix(words.OneLine(prompt), e.Input):
		return e.Session, true
	}
	return "", false
}

// SignalAct is what an agent's event asks of the loop.
type SignalAct int

// The acts.
const (
	SignalIgnore      SignalAct = iota // nothing: not this iteration's, or nothing to do
	SignalNote                         // a moment worth a line in the log
	SignalDelivered                    // the agent took the prompt
	SignalEnd                          // end the iteration (OnSignal gives the ending)
	SignalPermission                   // the agent waits for a permission: name it, notify
	SignalSession                      // the agent's session is another than swarm gave it: read its cost there
	SignalTurnPending                  // the turn ended, the agent is still busy (its Stop hooks): end once it is idle
	SignalUntied                       // an event that would act, not tied to the iteration's agent: ignored, and said
)

// SignalFacts is what the loop knows as an event arrives.
type SignalFacts struct {
	Event      AgentEvent
	Session    string // the session swarm gave this iteration's agent ("" when none)
	TokenSum   string // the digest of the token it was given ("" when none: see Untied)
	Recorded   string // the session the loop reads the iteration's cost from
	Working    bool   // the prompt was delivered
	Marker     bool   // the done marker shows (on screen or in the agent's last answer)
	Busy       bool   // the screen shows the agent busy (running its Stop hooks, the user's among them, or retrying)
	MaxContext int    // --max-context (a compaction ends the iteration)
	Permission bool   // "needs permission" is already named
	// ErrorShown: the screen shows an API error as the agent's last word, at the end of a
	// turn of an agent that ends its turn so on an error (see EndsTurnOnError).
	ErrorShown bool
}

// OnSignal decides what one event means: a turn that ended without the done marker ends the
// iteration at once (no waiting out the inactivity timeout), one that an API error ended
// fails it, a rate limit parks the loop as a usage limit does, a permission prompt is named.
// An event not tied to the iteration's agent does none of it: one that would have acted is
// SignalUntied, the others (an earlier agent's end, late) are ignored as they would be anyway.
func OnSignal(f SignalFacts) (SignalAct, Ending) {
	act, ending := onSignal(f)
	if act != SignalIgnore && Untied(f.Event, f.Session, f.TokenSum) != "" {
		return SignalUntied, 0
	}
	return act, ending
}

// onSignal is OnSignal for an event of the iteration's agent.
func onSignal(f SignalFacts) (SignalAct, Ending) {
	e := f.Event
	switch e.Event {
	case EventSessionStart:
		// A command that picks its session itself (--resume, --continue) runs another than
		// the one swarm chose: its transcript is where the cost is.
		if f.Session == "" && e.Agent == "claude" && e.Session != "" && e.Session != f.Recorded {
			return SignalSession, 0
		}
	case EventUserPromptSubmit:
		return SignalDelivered, 0
	case EventStop:
		return onTurnEnd(f)
	case EventStopFailure:
		return onTurnFailed(f)
	case EventNotification:
		if e.Kind == "permission_prompt" && f.Working && !f.Permission {
			return SignalPermission, 0
		}
		return SignalIgnore, 0
	case EventPermissionRequest:
		// Before the dialog: swarm's hook holds the request for an answer (permission.go).
		// Claude Code asks one at a time: a request is a new one, whatever was named before.
		if f.Working {
			return SignalPermission, 0
		}
		return SignalIgnore, 0
	case EventPreCompact:
		if f.MaxContext > 0 && f.Working {
			return SignalEnd, EndCompaction
		}
		return SignalNote, 0
	}
	// Otherwise SessionStart and SessionEnd stay in the events file: the agent's start and
	// end are watched anyway.
	return SignalIgnore, 0
}

// onTurnEnd is what a Stop means: the turn is over, as the done marker, an API error the
// screen shows (an agent that ends its turn on one) or a plain end.
func onTurnEnd(f SignalFacts) (SignalAct, Ending) {
	if !f.Working {
		return SignalIgnore, 0
	}
	if f.ErrorShown {
		return SignalEnd, EndAPIError
	}
	ending := EndTurnEnded
	if f.Marker {
		ending = EndDoneMarker
	}
	if f.Busy {
		// Ended now, the agent would take the user's own Stop hooks with it.
		return SignalTurnPending, ending
	}
	return SignalEnd, ending
}

// onTurnFailed is what a StopFailure means: an API error, or a usage limit.
func onTurnFailed(f SignalFacts) (SignalAct, Ending) {
	if !f.Working {
		return SignalIgnore, 0
	}
	ending := EndAPIError
	if f.Event.Error == "rate_limit" {
		ending = EndUsageLimit
	}
	if f.Busy {
		// A failed attempt the agent retries (Copilot names each): the last ends the turn.
		return SignalTurnPending, ending
	}
	return SignalEnd, ending
}
