package demoagent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Playing a real agent's signals (--like claude or --like codex, first): the demo agent then
// takes that agent's command-line flags for them and reports its moments the same way, so
// tests can drive swarm's use of the signals without the real agent.
//
// As Claude Code, it runs the command hooks of the user's settings ($CLAUDE_CONFIG_DIR or
// ~/.claude/settings.json), the project's (.claude/settings.json, .claude/settings.local.json)
// and the --settings file, all of them, with the event's JSON on stdin: SessionStart,
// UserPromptSubmit, Stop (or StopFailure), Notification, PreCompact, SessionEnd. As Codex, it
// runs its notify program (-c notify=[...]) with agent-turn-complete when a turn ends.
//
// Directives for the signals:
//
//	@fail TYPE TEXT      print TEXT and end the turn with StopFailure of that error type
//	@permission TOOL     ask for permission to use TOOL, as Tool(input): the PermissionRequest
//	                     hooks first (a decision answers it), else a dialog (Notification
//	                     permission_prompt) answered by keys (see permission.go)
//	@compact             report a compaction (PreCompact)
//	@quiet SECONDS       wait that long with nothing on screen
//	@long BYTES TEXT     say TEXT as the end of a last answer BYTES long (the rest of it, a
//	                     long report, is in the turn's Stop event but not on screen)

// signals is the agent being played; the zero value plays none.
type signals struct {
	like     string
	settings string   // Claude Code's --settings
	session  string   // Claude Code's --session-id
	notify   []string // Codex's notify program
	input    string   // the turn's message
	lastSaid string   // what the turn printed last (the agent's "last answer")
	failed   bool     // the turn ended with StopFailure
}

var played signals

// takeSignalFlags removes --like and the played agent's own flags from args.
func takeSignalFlags(args []string) []string {
	if len(args) < 2 || args[0] != "--like" {
		return args
	}
	played.like = args[1]
	var rest []string
	for i := 2; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "--dangerously-skip-permissions":
		case a == "--settings":
			played.settings = next()
		case a == "--session-id" || a == "--resume":
			played.session = next()
		case a == "-c" || a == "--config":
			if k, v, _ := strings.Cut(next(), "="); k == "notify" {
				_ = json.Unmarshal([]byte(v), &played.notify)
			}
		default:
			rest = append(rest, a)
		}
	}
	return rest
}

// fire reports one event the way the played agent does.
func (s *signals) fire(event string, fields map[string]any) {
	switch s.like {
	case "claude":
		s.runHooks(event, fields)
	case "codex":
		if event == "Stop" && len(s.notify) > 0 {
			msg, _ := json.Marshal(map[string]any{"type": "agent-turn-complete", "thread-id": "demo-thread",
				"turn-id": "1", "input-messages": []string{s.input}, "last-assistant-message": s.lastSaid})
			_ = exec.Command(s.notify[0], append(s.notify[1:], string(msg))...).Run()
		}
	}
}

func (s *signals) runHooks(event string, fields map[string]any) {
	cwd, _ := os.Getwd()
	in := map[string]any{"session_id": s.session, "transcript_path": "", "cwd": cwd, "hook_event_name": event}
	for k, v := range fields {
		in[k] = v
	}
	data, _ := json.Marshal(in)
	cmds := hookCommands(s.settingsFiles(cwd), event)
	if event == "Stop" && len(cmds) > 0 {
		// As Claude Code does, the turn shows itself busy until its Stop hooks are done.
		fmt.Printf("✻ Running Stop hooks… (esc to interrupt)")
		defer fmt.Print("\r\x1b[K")
	}
	// All at once, and waited for, as Claude Code runs them.
	var wg sync.WaitGroup
	for _, cmd := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := exec.Command("/bin/sh", "-c", cmd)
			c.Stdin = strings.NewReader(string(data))
			_ = c.Run()
		}()
	}
	wg.Wait()
}

// settingsFiles are the settings Claude Code merges, the user's first.
func (s *signals) settingsFiles(cwd string) []string {
	dir := os.Getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".claude")
	}
	files := []string{filepath.Join(dir, "settings.json"), filepath.Join(cwd, ".claude", "settings.json"),
		filepath.Join(cwd, ".claude", "settings.local.json")}
	if s.settings != "" {
		files = append(files, s.settings)
	}
	return files
}

// hookCommands are the command hooks for event in the settings files.
func hookCommands(files []string, event string) []string {
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var doc struct {
			Hooks map[string][]struct {
				Hooks []struct{ Type, Command string }
			}
		}
		if json.Unmarshal(data, &doc) != nil {
			continue
		}
		for _, m := range doc.Hooks[event] {
			for _, h := range m.Hooks {
				if h.Type == "command" {
					out = append(out, h.Command)
				}
			}
		}
	}
	return out
}

// input is the interactive agent's input, for an answer to its permission prompt.
var input *bufio.Reader

// signalDirective carries out a directive about the signals.
func signalDirective(verb, arg string) {
	switch verb {
	case "fail":
		kind, text, _ := strings.Cut(arg, " ")
		fmt.Println("● " + text)
		played.lastSaid, played.failed = text, true
		played.fire("StopFailure", map[string]any{"error": kind, "error_details": text, "last_assistant_message": text})
	case "permission":
		askPermission(arg)
	case "compact":
		played.fire("PreCompact", map[string]any{"trigger": "auto"})
		fmt.Println("● Compacting conversation…")
	case "long":
		size, text, _ := strings.Cut(arg, " ")
		n, _ := strconv.Atoi(size)
		fmt.Println("● " + text)
		const line = "a long report line\n"
		played.lastSaid = strings.Repeat(line, max(0, n-len(text))/len(line)) + text
	case "quiet":
		secs, _ := strconv.ParseFloat(arg, 64)
		time.Sleep(time.Duration(secs * float64(time.Second)))
	}
}
