package ralph

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCopilotGetsAPluginWithItsHooks(t *testing.T) {
	d := Dir{Path: "/s/ralph/w"}
	rec := []string{"/bin/swarm", "agent-event"}
	s := AgentSignals([]string{"/opt/bin/copilot", "--yolo"}, d, rec, "k1", false)
	if !slices.Equal(s.Argv, []string{"/opt/bin/copilot", "--yolo", "--plugin-dir", "/s/ralph/w/box/copilot-plugin"}) ||
		s.Settings != "/s/ralph/w/box/copilot-plugin/plugin.json" || s.Events != "/s/ralph/w/box/agent-events.jsonl" || s.Env != nil {
		t.Fatalf("got %+v", s)
	}
	var doc struct {
		Name  string
		Hooks map[string][]struct {
			Type, Bash string
			TimeoutSec int
		}
	}
	if err := json.Unmarshal(s.SettingsJSON, &doc); err != nil {
		t.Fatal(err)
	}
	ours := "/bin/swarm agent-event --agent copilot --file /s/ralph/w/box/agent-events.jsonl --token k1"
	if doc.Name != copilotPluginName || len(doc.Hooks) != len(copilotHookEvents) {
		t.Errorf("plugin %s with %d hooks", doc.Name, len(doc.Hooks))
	}
	for _, ev := range copilotHookEvents {
		if h := doc.Hooks[ev]; len(h) != 1 || h[0].Type != "command" || h[0].Bash != ours || h[0].TimeoutSec != HookTimeout {
			t.Errorf("%s: %+v", ev, h)
		}
	}
	if off := AgentSignals([]string{"copilot"}, d, rec, "", true); off.Settings != "" || len(off.Argv) != 1 {
		t.Errorf("signals off: %+v", off)
	}
	if IsCopilot([]string{"/usr/bin/copilot-linux-x64"}) || !IsCopilot([]string{"copilot"}) {
		t.Error("IsCopilot")
	}
}

// The hooks' input as Copilot 1.0.102 gives it, under Claude Code's names.
const (
	copilotStop = `{"hook_event_name":"Stop","session_id":"s1","timestamp":"2026-11-29T13:46:06.743Z","cwd":"/w",` +
		`"transcript_path":%q,"stop_reason":"end_turn","stop_hook_active":false}`
	copilotModelError = `{"hook_event_name":"ErrorOccurred","session_id":"s1","cwd":"/w","error":{"message":` +
		`"{\"code\":\"%s\",\"message\":\"fake API: simulated %[1]s\",\"param\":null,\"type\":\"%[1]s\"}","name":"Error",` +
		`"stack":"Error: ..."},"error_context":"model_call","recoverable":true}`
	copilotPermission = `{"sessionId":"s1","timestamp":1795960112240,"cwd":"/w","message":"Run command: touch DONE",` +
		`"title":"Permission needed","hook_event_name":"Notification","notification_type":"permission_prompt"}`
)

func readCopilot(t *testing.T, raw string) AgentEvent {
	t.Helper()
	e, ok := ReadCopilotEvent(strings.NewReader(raw), time.Unix(0, 0))
	if !ok {
		t.Fatalf("not read: %s", raw)
	}
	return e
}

func TestCopilotEvents(t *testing.T) {
	e := readCopilot(t, fmt.Sprintf(copilotModelError, "invalid_request_error"))
	if e.Agent != "copilot" || e.Event != EventStopFailure || e.Error != "invalid_request_error" ||
		e.Message != "fake API: simulated invalid_request_error" || e.Session != "s1" {
		t.Errorf("a refused request: %+v", e)
	}
	if act, ending := OnSignal(SignalFacts{Event: e, Working: true}); act != SignalEnd || ending != EndAPIError {
		t.Errorf("OnSignal = %v %v", act, ending)
	}
	// Each failed attempt says so; while the agent retries, the turn is not over.
	if act, ending := OnSignal(SignalFacts{Event: e, Working: true, Busy: true}); act != SignalTurnPending || ending != EndAPIError {
		t.Errorf("OnSignal while retrying = %v %v", act, ending)
	}
	if e := readCopilot(t, fmt.Sprintf(copilotModelError, "rate_limit_exceeded")); e.Error != "rate_limit" {
		t.Errorf("a refused rate: %+v", e)
	}
	other := strings.Replace(fmt.Sprintf(copilotModelError, "x"), "model_call", "tool_execution", 1)
	if e := readCopilot(t, other); e.Event != EventErrorOccurred {
		t.Errorf("an error of a tool: %+v", e)
	} else if act, _ := OnSignal(SignalFacts{Event: e, Working: true}); act != SignalIgnore {
		t.Errorf("an error of a tool acts: %v", act)
	}
	if e := readCopilot(t, copilotPermission); e.Event != EventNotification || e.Kind != "permission_prompt" ||
		e.Message != "Run command: touch DONE" {
		t.Errorf("a permission: %+v", e)
	}
	// Its permissionRequest input names no event in Claude Code's words.
	if _, ok := ReadCopilotEvent(strings.NewReader(`{"hookName":"permissionRequest","sessionId":"s1"}`), time.Now()); ok {
		t.Error("an input naming no event was read")
	}
}

func TestCopilotStopTakesTheLastAnswer(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	line := func(typ, content string) string {
		data, _ := json.Marshal(map[string]any{"type": typ, "data": map[string]any{"content": content}})
		return string(data) + "\n"
	}
	write := func(lines ...string) {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	stopHook := `{"type":"hook.start","data":{"hookType":"agentStop","input":{}}}` + "\n"
	write(line("user.message", "make the file"), line("assistant.message", "I will. <promise>COMPLETE</promise>"),
		line("user.message", "again"), line("assistant.message", "Done. <promise>COMPLETE</promise>"),
		line("assistant.message", ""), line("assistant.turn_end", ""), stopHook)
	if e := readCopilot(t, fmt.Sprintf(copilotStop, path)); e.Event != EventStop ||
		e.Message != "Done. <promise>COMPLETE</promise>" || e.Transcript != path {
		t.Errorf("got %+v", e)
	}
	// The prompt's turn answered nothing yet: an earlier turn's answer is not its.
	write(line("assistant.message", "Done. <promise>COMPLETE</promise>"), line("user.message", "again"), stopHook)
	if got := CopilotLastAnswer(path); got != "" {
		t.Errorf("an earlier turn's answer: %q", got)
	}
	// A long transcript is read from its end only.
	long := strings.Repeat(line("tool.execution_complete", strings.Repeat("x", 4000)), copilotTranscriptRead/4000+10)
	write(line("user.message", "go"), long, line("assistant.message", "the end"), stopHook)
	if got := CopilotLastAnswer(path); got != "the end" {
		t.Errorf("a long transcript: %q", got)
	}
	// Written behind the session: the answer is waited for until the Stop hook's start shows.
	write(line("user.message", "go"))
	go func() {
		time.Sleep(200 * time.Millisecond)
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		_, _ = f.WriteString(line("assistant.message", "late") + stopHook)
		f.Close()
	}()
	if got := CopilotLastAnswer(path); got != "late" {
		t.Errorf("a transcript written late: %q", got)
	}
	for _, bad := range []string{"events.jsonl", filepath.Join(dir, "other.json")} {
		if got := CopilotLastAnswer(bad); got != "" {
			t.Errorf("%s: %q", bad, got)
		}
	}
	// A transcript that never comes is waited for, a few seconds at most.
	start := time.Now()
	if got := CopilotLastAnswer(filepath.Join(dir, "none", "events.jsonl")); got != "" || time.Since(start) > copilotTranscriptWait+time.Second {
		t.Errorf("no transcript: %q after %s", got, time.Since(start))
	}
}
