package ralph

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestOpencodeGetsAPluginNamedInItsInlineConfiguration(t *testing.T) {
	d := Dir{Path: "/s/ralph/my w"}
	rec := []string{"/bin/swarm", "agent-event"}
	s := agentSignals([]string{"/usr/local/bin/opencode"}, d, rec, "k1", false, signalExtras{})
	if len(s.Argv) != 1 || s.Settings != "/s/ralph/my w/box/opencode-swarm.js" || s.Events != "/s/ralph/my w/box/agent-events.jsonl" {
		t.Fatalf("got %+v", s)
	}
	if len(s.Env) != 1 || s.Env[0] != `OPENCODE_CONFIG_CONTENT={"plugin":["file:///s/ralph/my%20w/box/opencode-swarm.js"]}` {
		t.Errorf("env %q", s.Env)
	}
	src := string(s.SettingsJSON)
	want := `const recorder = ["/bin/swarm","agent-event","--agent","opencode","--file","/s/ralph/my w/box/agent-events.jsonl","--token","k1"];`
	if !strings.Contains(src, want) || strings.Contains(src, "RECORDER") {
		t.Errorf("the plugin's recorder:\n%s", src)
	}
	for _, ev := range []string{`"session.idle"`, `"session.error"`, `"permission.asked"`, `"MessageAbortedError"`} {
		if !strings.Contains(src, ev) {
			t.Errorf("the plugin does not read %s", ev)
		}
	}
	if own := agentSignals([]string{"opencode"}, d, rec, "", false, signalExtras{opencode: true}); own.Settings != "" || own.Env != nil || own.Events != "" {
		t.Errorf("an inline configuration of the worker's own: %+v", own)
	}
	if off := AgentSignals([]string{"opencode"}, d, rec, "", true); off.Settings != "" || off.Env != nil {
		t.Errorf("signals off: %+v", off)
	}
}

func TestOpencodeOwnConfig(t *testing.T) {
	envFile := filepath.Join(t.TempDir(), "env.json")
	t.Setenv("OPENCODE_CONFIG_CONTENT", "")
	for _, c := range []struct {
		env  []string
		want bool
	}{{nil, false}, {[]string{`OPENCODE_CONFIG_CONTENT={"model":"x"}`}, true}} {
		data, _ := json.Marshal(c.env)
		if err := os.WriteFile(envFile, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if got := OpencodeOwnConfig(envFile); got != c.want {
			t.Errorf("%q: %v", c.env, got)
		}
	}
}

func TestOpencodeEventsAreNamedForIt(t *testing.T) {
	raw := []byte(`{"hook_event_name":"StopFailure","session_id":"ses_1","error":"APIError","error_details":"Bad Request"}`)
	e, ok := ParseAgentEvent("opencode", raw, time.Unix(0, 0))
	if !ok || e.Agent != "opencode" || e.Event != EventStopFailure || e.Error != "APIError" || e.Message != "Bad Request" {
		t.Errorf("got %+v %v", e, ok)
	}
	if act, ending := OnSignal(SignalFacts{Event: e, Working: true}); act != SignalEnd || ending != EndAPIError {
		t.Errorf("OnSignal = %v %v", act, ending)
	}
}
