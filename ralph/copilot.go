package ralph

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
)

// GitHub Copilot CLI runs the hooks of every source together: the machine's policy, the
// user's (~/.copilot/hooks, settings.json), the project's (.github/hooks) and its plugins'.
// It takes a plugin of a run's own with --plugin-dir, so an iteration's agent is given one
// in the loop's box whose plugin.json holds swarm's hooks, and the user's and the project's
// keep running, their files untouched. Hooks named in Claude Code's words (Stop,
// Notification, ...) get Claude Code's input (hook_event_name, session_id, ...). Two things
// differ: its Stop does not carry the agent's last answer, which its transcript (the
// session's events.jsonl) holds, written before the hook runs; and an API error is not a
// StopFailure but an ErrorOccurred hook of the model call, run at every failed attempt,
// retries and all, with no Stop after the last.

// IsCopilot reports whether cmd runs GitHub Copilot CLI.
func IsCopilot(cmd []string) bool {
	return len(cmd) > 0 && filepath.Base(cmd[0]) == "copilot"
}

// CopilotPlugin is the plugin directory Copilot is given for its hooks.
func (d Dir) CopilotPlugin() string { return filepath.Join(d.AgentBox(), "copilot-plugin") }

// copilotPluginName names swarm's plugin: Copilot loads one plugin of a name.
const copilotPluginName = "swarm-agent-signals"

// EventErrorOccurred is Copilot's hook for an error; the recorder turns one of a model call
// into a StopFailure.
const EventErrorOccurred = "ErrorOccurred"

// copilotHookEvents are the hooks swarm asks Copilot to run.
var copilotHookEvents = []string{EventSessionStart, EventUserPromptSubmit, EventStop, EventErrorOccurred,
	EventNotification, EventPreCompact, EventSessionEnd}

// copilotPlugin is the plugin's manifest: its name and a hook that runs rec at every event
// swarm reads.
func copilotPlugin(rec []string) []byte {
	quoted := make([]string, len(rec))
	for i, a := range rec {
		quoted[i] = words.ShellWord(a)
	}
	hook := map[string]any{"type": "command", "bash": strings.Join(quoted, " "), "timeoutSec": HookTimeout}
	hooks := map[string]any{}
	for _, ev := range copilotHookEvents {
		hooks[ev] = []any{hook}
	}
	data, _ := json.MarshalIndent(map[string]any{"name": copilotPluginName, "version": "1.0.0",
		"description": "swarm's loop: the agent's turn ends and errors, as they happen", "hooks": hooks}, "", "  ")
	return append(data, '\n')
}

// ReadCopilotEvent reads Copilot's hook input from r, as ReadClaudeEvent reads Claude Code's:
// an error of the model call becomes a StopFailure naming it, and a Stop is given the agent's
// last answer from the transcript.
func ReadCopilotEvent(r io.Reader, now time.Time) (AgentEvent, bool) {
	short := func() *kept { return &kept{max: eventFieldKept} }
	f := map[string]*kept{
		"hook_event_name": short(), "session_id": short(), "transcript_path": short(), "error_context": short(),
		"notification_type": short(), "message": {max: EventMessageKept},
		"error": {max: EventMessageKept, raw: true},
	}
	in := jsonIn{r: bufio.NewReader(r)}
	if in.object(f) != nil && !f["hook_event_name"].whole {
		return AgentEvent{}, false
	}
	e := AgentEvent{At: now.UTC().Format(time.RFC3339Nano), Agent: "copilot", Event: f["hook_event_name"].text(),
		Session: f["session_id"].text(), Transcript: f["transcript_path"].text(), Kind: f["notification_type"].text(),
		Message: f["message"].text()}
	switch e.Event {
	case "":
		return AgentEvent{}, false
	case EventErrorOccurred:
		if f["error_context"].text() == "model_call" {
			e.Event = EventStopFailure
			e.Error, e.Message = copilotError(f["error"].text())
		}
	case EventStop:
		e.Message = CopilotLastAnswer(e.Transcript)
	}
	return e, true
}

// copilotError reads the error of a failed model call: {"message": ..., "name": ...}, whose
// message is the API's error body when it answered with one. kind is the API's code, a
// refused rate as "rate_limit" (Claude Code's word, which the loop reads as a usage limit).
func copilotError(raw string) (kind, message string) {
	var outer struct{ Message string }
	if json.Unmarshal([]byte(raw), &outer) != nil {
		return "", raw
	}
	var body struct{ Code, Type, Message string }
	if json.Unmarshal([]byte(outer.Message), &body) != nil || body.Message == "" {
		return "", outer.Message
	}
	kind = FirstOf(body.Code, body.Type)
	if strings.Contains(kind, "rate_limit") {
		kind = "rate_limit"
	}
	return kind, body.Message
}

// copilotTranscriptRead bounds how much of a transcript's end is read for the last answer:
// the turn's last events are small beside the system prompt at its start.
const copilotTranscriptRead = 1 << 20

// copilotTranscriptWait bounds the wait for the transcript to hold the turn's end: Copilot
// writes it behind the session, and on a busy machine its Stop hook can run first.
const copilotTranscriptWait = 3 * time.Second

// CopilotLastAnswer is the text of the agent's last answer in its transcript (a session's
// events.jsonl; "" when there is none since the last prompt, or the file cannot be read),
// its end kept as Claude Code's last_assistant_message is. It waits, a few seconds at most,
// for the transcript to record the Stop hook's start: then the answer before it is there.
func CopilotLastAnswer(transcript string) string {
	deadline := time.Now().Add(copilotTranscriptWait)
	for {
		answer, written := readCopilotTurn(transcript)
		if written || time.Now().After(deadline) {
			return answer
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// readCopilotTurn reads the last answer since the last prompt from the end of a transcript,
// and whether the transcript holds the turn's end (its Stop hook started). A path that is no
// transcript's is given up at once; a transcript not there yet (on a loaded machine Copilot
// makes the file after the hook started) is waited for.
func readCopilotTurn(transcript string) (answer string, written bool) {
	if !filepath.IsAbs(transcript) || filepath.Base(transcript) != "events.jsonl" {
		return "", true
	}
	f, err := os.Open(transcript)
	if err != nil {
		return "", false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return "", err != nil
	}
	from := max(info.Size()-copilotTranscriptRead, 0)
	data, err := io.ReadAll(io.NewSectionReader(f, from, info.Size()-from))
	if err != nil {
		return "", false
	}
	lines := bytes.Split(data, []byte("\n"))
	if from > 0 {
		lines = lines[1:] // the first is a line's end
	}
	for i := len(lines) - 1; i >= 0; i-- {
		var ev struct {
			Type string
			Data struct{ Content, HookType string }
		}
		if json.Unmarshal(lines[i], &ev) != nil {
			continue
		}
		switch {
		case ev.Type == "user.message":
			return "", written // the prompt's turn said nothing yet
		case ev.Type == "hook.start" && ev.Data.HookType == "agentStop":
			written = true
		case ev.Type == "assistant.message" && strings.TrimSpace(ev.Data.Content) != "":
			if s := ev.Data.Content; len(s) > EventMessageKept {
				return strings.ToValidUTF8(s[len(s)-EventMessageKept:], ""), written
			}
			return ev.Data.Content, written
		}
	}
	return "", written
}
