package ralph

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestGeminiGetsADefaultsFileWithItsHooks(t *testing.T) {
	d := Dir{Path: "/s/ralph/w"}
	rec := []string{"/bin/swarm", "agent-event"}
	machine := map[string]any{"model": map[string]any{"name": "gemini-2.5-pro"},
		"hooks": map[string]any{"AfterAgent": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "mine"}}}}}}
	s := agentSignals([]string{"/opt/bin/gemini", "--yolo"}, d, rec, "k1", false, signalExtras{gemini: agentDefaults{settings: machine}})
	if !slices.Equal(s.Argv, []string{"/opt/bin/gemini", "--yolo"}) || s.Settings != "/s/ralph/w/box/gemini-system-defaults.json" ||
		!slices.Equal(s.Env, []string{"GEMINI_CLI_SYSTEM_DEFAULTS_PATH=/s/ralph/w/box/gemini-system-defaults.json"}) ||
		s.Events != "/s/ralph/w/box/agent-events.jsonl" {
		t.Fatalf("got %+v", s)
	}
	var doc struct {
		Model map[string]any
		Hooks map[string][]struct {
			Hooks []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	if err := json.Unmarshal(s.SettingsJSON, &doc); err != nil {
		t.Fatal(err)
	}
	ours := "/bin/swarm agent-event --agent gemini --file /s/ralph/w/box/agent-events.jsonl --token k1"
	for _, ev := range []string{"SessionStart", "BeforeAgent", "AfterAgent", "Notification", "SessionEnd"} {
		h := doc.Hooks[ev]
		first := 0
		if ev == "AfterAgent" {
			// The machine's own hook stays, first.
			if len(h) != 2 || h[0].Hooks[0].Command != "mine" {
				t.Errorf("%s: %+v", ev, h)
				continue
			}
			first = 1
		}
		if len(h) != first+1 || h[first].Hooks[0].Command != ours || h[first].Hooks[0].Timeout != HookTimeout*1000 {
			t.Errorf("%s: %+v", ev, h)
		}
	}
	// Run before every request, compressing or not: never a compaction of swarm's.
	if _, ok := doc.Hooks["PreCompress"]; ok {
		t.Errorf("PreCompress given: %s", s.SettingsJSON)
	}
	if doc.Model["name"] != "gemini-2.5-pro" {
		t.Errorf("the machine's settings are lost: %s", s.SettingsJSON)
	}
	if bad := agentSignals([]string{"gemini"}, d, rec, "", false, signalExtras{gemini: agentDefaults{bad: true}}); bad.Settings != "" ||
		bad.Env != nil || bad.Events != "" {
		t.Errorf("defaults that cannot be read: %+v", bad)
	}
	if off := AgentSignals([]string{"gemini"}, d, rec, "", true); off.Settings != "" || off.Env != nil {
		t.Errorf("signals off: %+v", off)
	}
}

func TestGeminiEventsAreReadUnderTheLoopsNames(t *testing.T) {
	now := time.Unix(0, 0)
	for _, c := range []struct {
		in         string
		event      string
		kind, text string
	}{
		{`{"hook_event_name":"SessionStart","session_id":"s1","source":"startup"}`, EventSessionStart, "", ""},
		{`{"hook_event_name":"BeforeAgent","session_id":"s1","prompt":"do it"}`, EventUserPromptSubmit, "", ""},
		{`{"hook_event_name":"AfterAgent","session_id":"s1","prompt":"do it","prompt_response":"Done. <promise>COMPLETE</promise>"}`,
			EventStop, "", "Done. <promise>COMPLETE</promise>"},
		// A turn that gave no answer (an API error ends one so) has none.
		{`{"hook_event_name":"AfterAgent","session_id":"s1","prompt_response":"[no response text]"}`, EventStop, "", ""},
		{`{"hook_event_name":"Notification","notification_type":"ToolPermission","message":"Allow rm -rf build?"}`,
			EventNotification, "permission_prompt", "Allow rm -rf build?"},
	} {
		e, ok := ParseAgentEvent("gemini", []byte(c.in), now)
		if !ok || e.Agent != "gemini" || e.Event != c.event || e.Kind != c.kind || e.Message != c.text || e.Session != "s1" && c.kind == "" {
			t.Errorf("%s: got %+v %v", c.in, e, ok)
		}
	}
	for _, in := range []string{`{"hook_event_name":"PreCompress"}`, `{"hook_event_name":"BeforeTool"}`, `not json`} {
		if e, ok := ParseAgentEvent("gemini", []byte(in), now); ok {
			t.Errorf("%s: read as %+v", in, e)
		}
	}
	// A long answer keeps its end, where a done marker is.
	long := strings.Repeat("x", 3*EventMessageKept) + " <promise>COMPLETE</promise>"
	raw, _ := json.Marshal(map[string]string{"hook_event_name": "AfterAgent", "prompt_response": long})
	if e, ok := ParseAgentEvent("gemini", raw, now); !ok || !strings.HasSuffix(e.Message, "<promise>COMPLETE</promise>") || len(e.Message) > EventMessageKept {
		t.Errorf("a long answer: %d bytes, ok %v", len(e.Message), ok)
	}
}

// Gemini CLI ends its turn on an API error as on any other: the screen tells the error apart.
func TestGeminiTurnEndOnAnErrorShownFailsTheIteration(t *testing.T) {
	e := AgentEvent{Agent: "gemini", Event: EventStop}
	if act, ending := OnSignal(SignalFacts{Event: e, Working: true, ErrorShown: true}); act != SignalEnd || ending != EndAPIError {
		t.Errorf("error shown: %v %v", act, ending)
	}
	if act, ending := OnSignal(SignalFacts{Event: e, Working: true}); act != SignalEnd || ending != EndTurnEnded {
		t.Errorf("no error: %v %v", act, ending)
	}
	if !EndsTurnOnError("gemini") || EndsTurnOnError("claude") || EndsTurnOnError("opencode") {
		t.Error("EndsTurnOnError")
	}
}
