package ralph

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/swarm-dev/swarm/ralph/cost"
	"github.com/swarm-dev/swarm/ralph/words"
)

// Asking an agent for its signals. Claude Code gets a settings file of its own for the run
// (--settings): its hooks are merged with the user's and the project's, whose files are never
// touched, so their own hooks keep running. Codex gets its notify program as a config override
// on its command line (-c); Qwen Code and Gemini CLI a system defaults file of their own
// (see qwen.go, gemini.go); Copilot a plugin of its own (--plugin-dir, see copilot.go);
// opencode a plugin named in its inline configuration (see opencode.go). All call `swarm
// agent-event`, which appends the event to the loop's events file. Other agents are left as
// they are.

// AgentBox is the loop's box: what its agent writes for swarm (its events, its DONE file) and
// reads of swarm's (its settings), kept apart from the loop's own state so that a confined
// agent is given this directory alone, never the state that says which commands swarm runs.
func (d Dir) AgentBox() string { return filepath.Join(d.Path, "box") }

// AgentEvents is the file the iteration's agent reports its events to (made afresh for each
// iteration).
func (d Dir) AgentEvents() string { return filepath.Join(d.AgentBox(), "agent-events.jsonl") }

// ClaudeSettings is the settings file Claude Code is given for its hooks.
func (d Dir) ClaudeSettings() string { return filepath.Join(d.AgentBox(), "claude-settings.json") }

// IsCodex reports whether cmd runs Codex.
func IsCodex(cmd []string) bool {
	return len(cmd) > 0 && filepath.Base(cmd[0]) == "codex"
}

// Signals is what an iteration's agent is given to report its events.
type Signals struct {
	Argv         []string // the agent's command, with the recorder added
	Events       string   // the events file, removed before the agent starts ("": none)
	Settings     string   // a settings file to write before it starts ("": none)
	SettingsJSON []byte
	Env          []string // KEY=VALUE the agent is started with (Qwen Code: where its hooks are)
}

// AgentSignals adds the recorder (swarm's executable, the argv prefix of `swarm agent-event`)
// to cmd where the agent can call it, with the iteration's token (see signals_tie.go; ""
// for none); without a recorder, for other agents, or when the loop was told not to, cmd is
// left alone.
func AgentSignals(cmd []string, d Dir, recorder []string, token string, off bool) Signals {
	return agentSignals(cmd, d, recorder, token, off, signalExtras{hold: DefaultPermissionHold})
}

// signalExtras are what an agent's signals need beyond the recorder: userNotify is the notify
// program of the user's own Codex configuration, which the recorder runs after it (the -c
// override replaces it); qwen is the system defaults file Qwen Code would read, which its own
// holds too; hold is how long Claude Code's PermissionRequest hook holds a request for a
// person's answer.
type signalExtras struct {
	userNotify []string
	qwen       agentDefaults
	hold       time.Duration
	gemini     agentDefaults // the system defaults file Gemini CLI would read
	opencode   bool          // the worker gives opencode an inline configuration of its own
}

// agentSignals is AgentSignals with the extras the launch read for this agent.
func agentSignals(cmd []string, d Dir, recorder []string, token string, off bool, x signalExtras) Signals {
	out := Signals{Argv: cmd}
	if off || len(recorder) == 0 || len(cmd) == 0 {
		return out
	}
	events := d.AgentEvents()
	recorderFor := func(agent string) []string {
		rec := append(append([]string{}, recorder...), "--agent", agent, "--file", events)
		if token != "" {
			rec = append(rec, "--token", token)
		}
		return rec
	}
	switch {
	case IsClaude(cmd) && !hasFlag(cmd, "--settings"):
		rec := recorderFor("claude")
		out.Settings, out.SettingsJSON = d.ClaudeSettings(), claudeHookSettings(rec, x.hold, d.PaceFile())
		out.Argv = append(append([]string{}, cmd...), "--settings", out.Settings)
	case IsCodex(cmd) && !setsCodexNotify(cmd):
		rec := recorderFor("codex")
		if len(x.userNotify) > 0 {
			then, _ := json.Marshal(x.userNotify)
			rec = append(rec, "--then", string(then))
		}
		notify, _ := json.Marshal(rec) // a JSON list of strings is a TOML array
		out.Argv = append([]string{cmd[0], "-c", "notify=" + string(notify)}, cmd[1:]...)
	case IsQwen(cmd) && !x.qwen.bad:
		out.Settings, out.SettingsJSON = d.QwenDefaults(), qwenHookSettings(recorderFor("qwen"), x.qwen.settings)
		out.Env = []string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH=" + out.Settings}
	case IsCopilot(cmd):
		out.Settings, out.SettingsJSON = filepath.Join(d.CopilotPlugin(), "plugin.json"), copilotPlugin(recorderFor("copilot"))
		out.Argv = append(append([]string{}, cmd...), "--plugin-dir", d.CopilotPlugin())
	case IsGemini(cmd) && !x.gemini.bad:
		out.Settings, out.SettingsJSON = d.GeminiDefaults(), geminiHookSettings(recorderFor("gemini"), x.gemini.settings)
		out.Env = []string{"GEMINI_CLI_SYSTEM_DEFAULTS_PATH=" + out.Settings}
	case IsOpencode(cmd) && !x.opencode:
		out.Settings, out.SettingsJSON = d.OpencodePlugin(), opencodePlugin(recorderFor("opencode"))
		out.Env = []string{"OPENCODE_CONFIG_CONTENT=" + opencodeConfig(out.Settings)}
	default:
		return out
	}
	out.Events = events
	return out
}

// CodexUserNotify is the notify program of the Codex configuration the worker's environment
// points at ($CODEX_HOME or ~/.codex, config.toml); nil when it sets none.
func CodexUserNotify(envFile string) []string {
	getenv := EnvFileGetenv(envFile)
	var cfg struct {
		Notify []string `toml:"notify"`
	}
	if _, err := toml.DecodeFile(filepath.Join(cost.CodexHome(getenv), "config.toml"), &cfg); err != nil {
		return nil
	}
	return cfg.Notify
}

// Recorder is the command that records an agent's events, from swarm's wrapper (swarm __run):
// the same executable's agent-event; nil without a wrapper.
func Recorder(wrapper []string) []string {
	if len(wrapper) == 0 {
		return nil
	}
	return []string{wrapper[0], "agent-event"}
}

// HookTimeout is the time limit of swarm's hooks (seconds), after which Claude Code ends one.
const HookTimeout = 10

// claudeHookSettings is a settings file that runs rec at every hook swarm reads, at
// PermissionRequest with the hold, which Claude Code lets run a little longer than that, and
// as the status line, which records the account's pace in pace (see pace.go).
func claudeHookSettings(rec []string, hold time.Duration, pace string) []byte {
	command := func(argv []string) string {
		quoted := make([]string, len(argv))
		for i, a := range argv {
			quoted[i] = words.ShellWord(a)
		}
		return strings.Join(quoted, " ")
	}
	hook := map[string]any{"type": "command", "command": command(rec), "timeout": HookTimeout}
	hooks := map[string]any{}
	for _, ev := range ClaudeHookEvents {
		hooks[ev] = []any{map[string]any{"hooks": []any{hook}}}
	}
	secs := int(hold / time.Second) // 0: recorded, not held
	held := append(append([]string{}, rec...), "--hold", strconv.Itoa(secs))
	hooks[EventPermissionRequest] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command",
		"command": command(held), "timeout": secs + permissionHookSlack}}}}
	settings := map[string]any{"hooks": hooks}
	if pace != "" {
		settings["statusLine"] = statusLineSetting(rec, pace, command)
	}
	data, _ := json.MarshalIndent(settings, "", "  ")
	return append(data, '\n')
}

// hasFlag reports whether argv gives flag, as "--flag value" or "--flag=value".
func hasFlag(argv []string, flag string) bool {
	return slices.ContainsFunc(argv[1:], func(a string) bool { return a == flag || strings.HasPrefix(a, flag+"=") })
}

// setsCodexNotify reports whether a Codex command line sets its notify program itself.
func setsCodexNotify(argv []string) bool {
	for i, a := range argv {
		v, ok := "", false
		switch {
		case (a == "-c" || a == "--config") && i+1 < len(argv):
			v, ok = argv[i+1], true
		case strings.HasPrefix(a, "--config="):
			v, ok = strings.TrimPrefix(a, "--config="), true
		}
		if ok && strings.HasPrefix(strings.TrimSpace(v), "notify") {
			return true
		}
	}
	return false
}
