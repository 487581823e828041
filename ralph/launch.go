package ralph

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
)

// An agent runs in its pane under a small POSIX shell script rather than a process of swarm's
// own: the script gives the agent the worker's saved environment, feeds it the prompt on stdin
// when asked, and records its exit code in the exit file (tmux does not always collect the
// status of a pane that ends quickly). It costs a shell (about a megabyte) where a Go wrapper
// cost ten. The environment is written to a private file (mode 0600), never to a command line
// where every local user could read it; a worker whose environment holds a name the shell
// cannot export falls back to swarm's own wrapper.

// Launch is how one agent is started.
type Launch struct {
	Argv     []string // the agent's command
	EnvFile  string   // the worker's saved environment (a JSON list of KEY=VALUE)
	Extra    []string // KEY=VALUE added for this start (no secrets: the iteration's)
	ExitFile string   // where its exit code goes
	Stdin    string   // a file to give it on stdin; "" leaves it the terminal
	Script   string   // where the script is written
	PIDFile  string   // where the script notes its pid and its parent's ("" for nowhere)
	// Wrapper is swarm's own wrapper (swarm __run), for an environment sh cannot carry.
	Wrapper []string
	// Events and Settings are where the agent reports its own signals (see AgentSignals).
	Events       string
	Settings     string
	SettingsJSON []byte
	// Box is the loop's box, the one place of swarm's state a confined agent may write ("":
	// the worker is no loop); Sandbox, when set, is the launcher that runs the agent confined
	// (sandbox.Launch.Prefix), put in front of Argv.
	Box     string
	Sandbox []string
}

// agentArgv is what runs the agent: Argv, behind the sandbox's launcher when it has one.
func (l Launch) agentArgv() []string {
	return append(append([]string{}, l.Sandbox...), l.Argv...)
}

// Command writes the script and returns what the pane runs: the shell, on an empty
// environment (the script sets the saved one), reading the script.
func (l Launch) Command() ([]string, error) {
	argv, _, err := l.Start()
	return argv, err
}

// Start is Command, and whether the agent starts under the script (not swarm's wrapper).
func (l Launch) Start() (argv []string, scripted bool, err error) {
	if err := l.prepareSignals(); err != nil {
		return nil, false, err
	}
	var env []string
	if err := state.ReadJSON(l.EnvFile, &env); err != nil {
		// No saved environment (a record from before they were saved), or a damaged one,
		// which swarm's wrapper reports as the agent's failure to start.
		return l.wrapped(), false, nil
	}
	script, ok := l.script(append(env, l.Extra...))
	if !ok {
		return l.wrapped(), false, nil
	}
	// Written before each start and run at once: a crash of the machine loses nothing of it.
	if err := state.ReplaceFile(l.Script, []byte(script), 0o600); err != nil {
		return nil, false, err
	}
	return []string{"env", "-i", "/bin/sh", l.Script}, true, nil
}

// prepareSignals writes the agent's settings file and empties its events file: what an
// earlier agent reported is not this one's.
func (l Launch) prepareSignals() error {
	if l.Box != "" {
		if err := os.MkdirAll(l.Box, 0o700); err != nil {
			return err
		}
	}
	if l.Events != "" {
		if err := os.Remove(l.Events); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	if l.Settings == "" {
		return nil
	}
	// Copilot's is a plugin's manifest, in a directory of its own.
	if err := os.MkdirAll(filepath.Dir(l.Settings), 0o700); err != nil {
		return err
	}
	return state.ReplaceFile(l.Settings, l.SettingsJSON, 0o600)
}

// wrapped is the agent under swarm's own wrapper (or bare, when there is none).
func (l Launch) wrapped() []string {
	if len(l.Wrapper) == 0 {
		return l.Argv
	}
	argv := WrapperArgv(l.Wrapper, l.EnvFile, l.Extra)
	mode := config.PromptType
	if l.Stdin != "" {
		mode = config.PromptStdin
	}
	return AgentArgv(l.agentArgv(), mode, argv, l.ExitFile, l.Stdin)
}

// script is the shell script; ok is false when a variable's name cannot be exported by sh.
func (l Launch) script(env []string) (string, bool) {
	var b strings.Builder
	b.WriteString("# Written by swarm to start one agent. It holds the worker's environment: keep it private.\n")
	if l.PIDFile != "" {
		// First, so that whoever waits for the agent learns its process (and group) at once.
		// Run by a host, the script is a subshell of it: $$ is the host's, the subshell's own
		// process is /proc/self's.
		fmt.Fprintf(&b, "read -r me _ < /proc/self/stat 2>/dev/null || me=$$\n"+
			"if [ \"$me\" = \"$$\" ]; then up=$PPID; else up=$$; fi\necho \"$me $up\" > %s\n", words.ShellQuote(l.PIDFile))
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if !shellName(k) {
			return "", false
		}
		fmt.Fprintf(&b, "export %s=%s\n", k, words.ShellQuote(v))
	}
	// record CODE [REASON]: the exit file, one line each, written in place by the shell itself
	// (a mv at every agent's end is a process fifty loops feel); readers take a line only once
	// it is whole.
	fmt.Fprintf(&b, "record() { printf '%%s\\n' \"$@\" > %s; }\n", words.ShellQuote(l.ExitFile))
	prog := words.ShellQuote(l.Argv[0])
	if strings.Contains(l.Argv[0], "/") {
		fmt.Fprintf(&b, "if [ ! -e %s ]; then echo %s >&2; record 127 %s; exit 127; fi\n", prog,
			words.ShellQuote("swarm: error: executable not found: "+l.Argv[0]), words.ShellQuote("executable not found: "+l.Argv[0]))
		fmt.Fprintf(&b, "if [ -d %[1]s ] || [ ! -x %[1]s ]; then echo %s >&2; record 126 %s; exit 126; fi\n", prog,
			words.ShellQuote("swarm: error: permission denied: "+l.Argv[0]), words.ShellQuote("permission denied: "+l.Argv[0]))
	} else {
		fmt.Fprintf(&b, "if ! command -v %s >/dev/null 2>&1; then echo %s >&2; record 127 %s; exit 127; fi\n", prog,
			words.ShellQuote("swarm: error: executable not found: "+l.Argv[0]), words.ShellQuote("executable not found: "+l.Argv[0]))
	}
	agent := l.agentArgv()
	quoted := make([]string, len(agent))
	for i, a := range agent {
		quoted[i] = words.ShellQuote(a)
	}
	run := strings.Join(quoted, " ")
	if l.Stdin != "" {
		fmt.Fprintf(&b, "if [ ! -r %s ]; then echo %s >&2; record 127 %s; exit 127; fi\n", words.ShellQuote(l.Stdin),
			words.ShellQuote("swarm: error: cannot read "+l.Stdin), words.ShellQuote("cannot read "+l.Stdin))
		run += " < " + words.ShellQuote(l.Stdin)
	}
	if l.PIDFile != "" {
		// Run by a host (a subshell of it), the script gives way to the agent: the host records
		// how it ended, and the agent's process group holds no shell to wait for as well.
		fmt.Fprintf(&b, "if [ \"$me\" != \"$$\" ]; then exec %s; fi\n", run)
	}
	// Signals meant for the agent's group reach the agent; the shell notes them and stays to
	// record how the agent ended (a trap, unlike ignoring, is not passed on to the agent).
	// Not HUP: when the window, session or server is closed, only the shell (the session's
	// leader) is told, and a shell that stayed would keep an agent that never touches its
	// terminal (a sleep, a quiet build) running without a window. Ending, the shell passes the
	// hangup on to the agent, as plain tmux would. No loop needs more: a loop's agent under a
	// host gave way to it above, and a loop ends an agent by its process group, never by HUP.
	b.WriteString("trap : INT QUIT TERM\n")
	b.WriteString(run + "\ncode=$?\n" + settle + "record \"$code\"\nexit \"$code\"\n")
	return b.String(), true
}

// settle waits, before the script ends, until tmux has read everything the agent wrote: tmux
// (3.3a at least) closes a pane's terminal as soon as its process ends, and what it had not
// yet read is lost, most often the last lines of a program that ends with a burst of output
// or on a busy machine. The terminal is asked for its status (ESC [ 5 n); tmux reads its input
// in order, so its answer comes once all that came before is on the pane's screen. Echo off,
// so the answer is not shown; two seconds at most, for a terminal that does not answer. The
// terminal is not set back: the pane's process is about to end.
const settle = "if [ -t 0 ] && [ -t 1 ] && stty -echo -icanon min 0 time 20 2>/dev/null; then " +
	"printf '\\033[5n'; dd bs=4 count=1 >/dev/null 2>&1; fi\n"

// shellName reports whether sh can export a variable of this name.
func shellName(k string) bool {
	if k == "" || k[0] >= '0' && k[0] <= '9' {
		return false
	}
	for _, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// IsClaude reports whether cmd runs Claude Code.
func IsClaude(cmd []string) bool {
	return len(cmd) > 0 && filepath.Base(cmd[0]) == "claude"
}

// AgentCommand is the agent's command for one iteration: Claude Code is given the session id
// swarm chose, so its transcript is found exactly, unless the command picks a session itself.
func AgentCommand(cmd []string, session string) []string {
	if session == "" || !IsClaude(cmd) {
		return cmd
	}
	for _, a := range cmd[1:] {
		name, _, _ := strings.Cut(a, "=")
		if slices.Contains([]string{"--session-id", "--resume", "-r", "--continue", "-c", "--fork-session"}, name) {
			return cmd
		}
	}
	return append(append([]string{}, cmd...), "--session-id", session)
}

// EnvFileGetenv reads a worker's saved environment (its env file, a JSON list of K=V) as a
// getenv: a variable it does not set is this process's.
func EnvFileGetenv(envFile string) func(string) string {
	env := map[string]string{}
	var list []string
	if state.ReadJSON(envFile, &list) == nil {
		for _, kv := range list {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
	}
	return func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
}

// AgentArgv is the command run in the pane for an iteration: the agent under swarm's wrapper,
// which writes its exit code to exitFile (tmux does not always collect the status of a pane
// that ends quickly after a respawn) and, in stdin mode, gives it the prompt on stdin.
func AgentArgv(cmd []string, mode string, wrapper []string, exitFile, promptCopy string) []string {
	if len(wrapper) == 0 {
		return cmd
	}
	argv := append([]string{}, wrapper...)
	argv = append(argv, "--exit-file", exitFile)
	if mode == config.PromptStdin {
		argv = append(argv, "--stdin", promptCopy)
	}
	argv = append(argv, "--")
	return append(argv, cmd...)
}

// IterationLaunch is how iteration n of a loop starts the agent argv in worker name: with the
// worker's environment and the iteration's, the prompt on stdin in stdin mode, under the
// exit-recording script (or wrapper), its signals recorded with token (see signals_tie.go).
func IterationLaunch(d Dir, workers *state.Dir, name string, argv []string, st *State, n int, extra, wrapper []string, token string) Launch {
	stdin := ""
	if st.PromptMode == config.PromptStdin {
		stdin = d.PromptCopy()
	}
	var userNotify []string
	if IsCodex(argv) && !st.NoAgentSignals {
		userNotify = CodexUserNotify(workers.EnvPath(name))
	}
	var qwen agentDefaults
	if IsQwen(argv) && !st.NoAgentSignals {
		qwen = QwenUserDefaults(workers.EnvPath(name))
	}
	x := signalExtras{userNotify: userNotify, qwen: qwen, hold: st.PermissionHold()}
	if IsGemini(argv) && !st.NoAgentSignals {
		x.gemini = GeminiUserDefaults(workers.EnvPath(name))
	}
	x.opencode = IsOpencode(argv) && OpencodeOwnConfig(workers.EnvPath(name))
	sig := agentSignals(argv, d, Recorder(wrapper), token, st.NoAgentSignals, x)
	env := append(append(append([]string{}, extra...), d.AgentEnv(name, n)...), sig.Env...)
	return Launch{Argv: sig.Argv, EnvFile: workers.EnvPath(name), Extra: env,
		ExitFile: workers.ExitPath(name), Stdin: stdin, Script: workers.ScriptPath(name), PIDFile: workers.AgentPIDPath(name),
		Wrapper: wrapper, Events: sig.Events, Settings: sig.Settings, SettingsJSON: sig.SettingsJSON, Box: d.AgentBox()}
}

// WrapperArgv is swarm's wrapper given the worker's environment: from its private file, plus
// extra values that are no secret (the iteration's) as flags. Nothing goes to tmux's -e, which
// would keep it for the whole session and show it to every local user in ps.
func WrapperArgv(wrapper []string, envFile string, extra []string) []string {
	argv := append(append([]string{}, wrapper...), "--env-file", envFile)
	for _, kv := range extra {
		argv = append(argv, "--env", kv)
	}
	return argv
}

// BeginIteration records that iteration n started at now, from commit head (empty outside a
// git repository). Spawn uses it for the first iteration, the loop for the others.
func (st *State) BeginIteration(n int, now time.Time, head string) {
	st.CurrentIteration = n
	st.LastIterationStarted = now.Format(TimeFormat)
	st.IterationStartCommit = head
	st.Phase = PhaseStarting
	st.TmuxSilentSince = ""
	if st.BlockedBy == "" && st.NeedsPermission == "" && st.UnknownScreen == "" {
		// The agent before needed no person: a need this one meets begins with it.
		st.NeedsPersonSince = ""
	}
	st.BlockedBy, st.NeedsPermission = "", ""
	st.LastExitCode = nil
	st.LastScreenChange = st.LastIterationStarted
	st.ContextUsed, st.ContextNudgeSent = 0, false
}

// AgentEnv is what an iteration's agent gets on top of the worker's own environment.
func (d Dir) AgentEnv(worker string, n int) []string {
	return []string{fmt.Sprintf("SWARM_ITERATION=%d", n), "SWARM_WORKER=" + worker, "SWARM_DONE_FILE=" + d.DoneFile()}
}
