package ralph

import (
	"bufio"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
)

// Gemini CLI runs hooks of its own (AfterAgent at a turn's end, Notification at a permission
// dialog, ...) from its settings files, with no flag for a file of a run's own. It reads a
// system defaults file at the path GEMINI_CLI_SYSTEM_DEFAULTS_PATH names and adds the hooks
// of all its settings files together: an iteration's agent is given a defaults file of its
// own there (see agent_defaults.go), so the user's settings, the project's and the machine's
// all still apply, their hooks too. It has no hook for an API error: it ends its turn on one
// as on any other, and the screen tells the error apart (SignalFacts.ErrorShown).

// EndsTurnOnError reports whether the agent's turn's end (its Stop) comes after an API error
// too, which its signals name no other way: Gemini CLI's AfterAgent.
func EndsTurnOnError(agent string) bool { return agent == "gemini" }

// ErrorDrawWait is how long the screen of such an agent is given to show an API error after a
// turn that ended with no answer (as a turn an error ended does): its hook runs while the
// error is being drawn, and its Stop is often read before the error is on screen.
const ErrorDrawWait = 2 * time.Second

// geminiNoAnswer is what Gemini CLI's AfterAgent gives as the answer of a turn that gave none.
const geminiNoAnswer = "[no response text]"

// IsGemini reports whether cmd runs Gemini CLI.
func IsGemini(cmd []string) bool {
	return len(cmd) > 0 && filepath.Base(cmd[0]) == "gemini"
}

// GeminiDefaults is the system defaults file Gemini CLI is given for its hooks.
func (d Dir) GeminiDefaults() string {
	return filepath.Join(d.AgentBox(), "gemini-system-defaults.json")
}

// GeminiUserDefaults reads the system defaults file the worker's environment points Gemini
// CLI at: GEMINI_CLI_SYSTEM_DEFAULTS_PATH, or system-defaults.json beside its system settings
// (GEMINI_CLI_SYSTEM_SETTINGS_PATH, or the system's own place for them).
func GeminiUserDefaults(envFile string) agentDefaults {
	sys := "/etc/gemini-cli/settings.json"
	if runtime.GOOS == "darwin" {
		sys = "/Library/Application Support/GeminiCli/settings.json"
	}
	return userDefaults(envFile, "GEMINI_CLI_SYSTEM_DEFAULTS_PATH", "GEMINI_CLI_SYSTEM_SETTINGS_PATH", sys)
}

// geminiEvents are Gemini CLI's hooks swarm runs its recorder at, and the names the loop
// reads them by.
var geminiEvents = map[string]string{
	"SessionStart": EventSessionStart,
	"BeforeAgent":  EventUserPromptSubmit,
	"AfterAgent":   EventStop,
	"Notification": EventNotification,
	"SessionEnd":   EventSessionEnd,
	// Not PreCompress: Gemini CLI runs it before every request, whether it compresses or not.
}

// geminiHookSettings is the defaults file: the machine's, with a hook that runs rec at every
// event swarm reads added to the hooks it has. Gemini CLI's time limits are milliseconds.
func geminiHookSettings(rec []string, base map[string]any) []byte {
	hook := map[string]any{"name": "swarm", "type": "command", "command": shellCommand(rec), "timeout": HookTimeout * 1000}
	ours := map[string][]any{}
	for ev := range geminiEvents {
		ours[ev] = []any{map[string]any{"hooks": []any{hook}}}
	}
	return withHooks(base, ours)
}

// geminiPermission is Gemini CLI's notification of a permission dialog.
const geminiPermission = "ToolPermission"

// ReadGeminiEvent reads Gemini CLI's hook input from r, under the names the loop reads (a
// turn's end is a Stop, its final answer the message); ok is false for anything else. Read as
// Claude Code's is, in bounded memory whatever the answer's length.
func ReadGeminiEvent(r io.Reader, now time.Time) (AgentEvent, bool) {
	short := func() *kept { return &kept{max: eventFieldKept} }
	f := map[string]*kept{
		"hook_event_name": short(), "session_id": short(), "transcript_path": short(),
		"notification_type": short(), "message": {max: EventMessageKept},
		"prompt_response": {max: EventMessageKept, tail: true},
	}
	in := jsonIn{r: bufio.NewReader(r)}
	if in.object(f) != nil && !f["hook_event_name"].whole {
		return AgentEvent{}, false
	}
	ev, ok := geminiEvents[f["hook_event_name"].text()]
	if !ok {
		return AgentEvent{}, false
	}
	e := AgentEvent{At: now.UTC().Format(time.RFC3339Nano), Agent: "gemini", Event: ev,
		Session: f["session_id"].text(), Transcript: f["transcript_path"].text(), Kind: f["notification_type"].text(),
		Message: FirstOf(f["message"].text(), f["prompt_response"].text())}
	if e.Message == geminiNoAnswer {
		e.Message = ""
	}
	if e.Kind == geminiPermission {
		e.Kind = "permission_prompt" // as Claude Code names it
	}
	return e, true
}

// shellCommand is argv as one command line for a shell, each word quoted.
func shellCommand(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = words.ShellWord(a)
	}
	return strings.Join(quoted, " ")
}
