package ralph

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

func TestQwenGetsADefaultsFileWithItsHooks(t *testing.T) {
	d := Dir{Path: "/s/ralph/w"}
	rec := []string{"/bin/swarm", "agent-event"}
	machine := map[string]any{"model": map[string]any{"name": "qwen3"},
		"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "mine"}}}}}}
	s := agentSignals([]string{"/opt/bin/qwen", "--yolo"}, d, rec, "k1", false, signalExtras{qwen: agentDefaults{settings: machine}})
	if !slices.Equal(s.Argv, []string{"/opt/bin/qwen", "--yolo"}) || s.Settings != "/s/ralph/w/box/qwen-system-defaults.json" ||
		!slices.Equal(s.Env, []string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH=/s/ralph/w/box/qwen-system-defaults.json"}) ||
		s.Events != "/s/ralph/w/box/agent-events.jsonl" {
		t.Fatalf("got %+v", s)
	}
	var doc struct {
		Model map[string]any
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string }
		}
	}
	if err := json.Unmarshal(s.SettingsJSON, &doc); err != nil {
		t.Fatal(err)
	}
	ours := "/bin/swarm agent-event --agent qwen --file /s/ralph/w/box/agent-events.jsonl --token k1"
	for _, ev := range ClaudeHookEvents {
		h := doc.Hooks[ev]
		if ev == EventStop {
			// The machine's own hook stays, first.
			if len(h) != 2 || h[0].Hooks[0].Command != "mine" || h[1].Hooks[0].Command != ours {
				t.Errorf("%s: %+v", ev, h)
			}
			continue
		}
		if len(h) != 1 || h[0].Hooks[0].Command != ours {
			t.Errorf("%s: %+v", ev, h)
		}
	}
	if doc.Model["name"] != "qwen3" {
		t.Errorf("the machine's settings are lost: %s", s.SettingsJSON)
	}
	if bad := agentSignals([]string{"qwen"}, d, rec, "", false, signalExtras{qwen: agentDefaults{bad: true}}); bad.Settings != "" ||
		bad.Env != nil || bad.Events != "" {
		t.Errorf("defaults that cannot be read: %+v", bad)
	}
	if off := AgentSignals([]string{"qwen"}, d, rec, "", true); off.Settings != "" || off.Env != nil {
		t.Errorf("signals off: %+v", off)
	}
}

func TestQwenEventsAreNamedForIt(t *testing.T) {
	raw := []byte(`{"session_id":"s1","hook_event_name":"StopFailure","error":"server_error","error_details":"500 fake","last_assistant_message":"[API Error: 500 fake]"}`)
	e, ok := ParseAgentEvent("qwen", raw, time.Unix(0, 0))
	if !ok || e.Agent != "qwen" || e.Event != EventStopFailure || e.Error != "server_error" || e.Message != "500 fake" {
		t.Errorf("got %+v %v", e, ok)
	}
	if act, ending := OnSignal(SignalFacts{Event: e, Working: true}); act != SignalEnd || ending != EndAPIError {
		t.Errorf("OnSignal = %v %v", act, ending)
	}
}
