package ralph

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadClaudeEventNamesAPermissionRequest(t *testing.T) {
	in := `{"session_id":"s1","hook_event_name":"PermissionRequest","tool_name":"Bash",` +
		`"tool_input":{"command":"rm -rf build\n\u001b]0;pwned\u0007","description":"clean"},"permission_suggestions":[]}`
	e, ok := ReadClaudeEvent(strings.NewReader(in), time.Unix(0, 0))
	if !ok || e.Event != EventPermissionRequest {
		t.Fatalf("got %+v %v", e, ok)
	}
	if want := "Claude needs your permission to use Bash(rm -rf build ]0;pwned)"; e.Message != want {
		t.Fatalf("message %q, want %q", e.Message, want)
	}
}

func TestReadClaudeEventBoundsAPermissionRequestsInput(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	in := `{"hook_event_name":"PermissionRequest","tool_name":"Write","tool_input":{"content":"` + huge + `","file_path":"a.go"}}`
	e, ok := ReadClaudeEvent(strings.NewReader(in), time.Unix(0, 0))
	if !ok || len(e.Message) > 300 || !strings.HasPrefix(e.Message, "Claude needs your permission to use Write(") {
		t.Fatalf("got %d bytes: %.120q %v", len(e.Message), e.Message, ok)
	}
}

func TestToolSummary(t *testing.T) {
	for _, c := range []struct{ tool, input, want string }{
		{"Bash", `{"command":"make test"}`, "Bash(make test)"},
		{"Edit", `{"file_path":"/src/a.go","old_string":"x"}`, "Edit(/src/a.go)"},
		{"WebFetch", `{"url":"https://example.com"}`, "WebFetch(https://example.com)"},
		{"mcp__x__y", `{"n":1}`, `mcp__x__y({"n":1})`},
		{"Task", `{}`, "Task"},
		{"", ``, "a tool"},
		{"Bash", `{"command":"` + strings.Repeat("é", 300) + `"}`, "Bash(" + strings.Repeat("é", 98) + "…)"},
	} {
		if got := ToolSummary(c.tool, c.input); got != c.want {
			t.Errorf("ToolSummary(%q, %q) = %q, want %q", c.tool, c.input, got, c.want)
		}
	}
}

func TestHookDecisionAllows(t *testing.T) {
	got := string(HookDecision(Answer{Answer: AnswerYes, By: "cli"}))
	if want := `{"hookSpecificOutput":{"decision":{"behavior":"allow"},"hookEventName":"PermissionRequest"}}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestHookDecisionDeniesWithTheMessage(t *testing.T) {
	var out struct {
		HookSpecificOutput struct {
			HookEventName string
			Decision      struct{ Behavior, Message string }
		}
	}
	if err := json.Unmarshal(HookDecision(Answer{Answer: AnswerNo, Message: "use make clean", By: "web"}), &out); err != nil {
		t.Fatal(err)
	}
	if d := out.HookSpecificOutput; d.HookEventName != "PermissionRequest" || d.Decision.Behavior != "deny" || d.Decision.Message != "use make clean" {
		t.Fatalf("got %+v", d)
	}
	_ = json.Unmarshal(HookDecision(Answer{Answer: AnswerNo, By: "cli"}), &out)
	if out.HookSpecificOutput.Decision.Message == "" {
		t.Fatal("a refusal without a message tells the model nothing")
	}
}

func TestParseAnswerTakesAValidAnswer(t *testing.T) {
	a, err := ParseAnswer([]byte(`{"answer":"no","message":"not now","by":"web"}`))
	if err != nil || a != (Answer{Answer: AnswerNo, Message: "not now", By: "web"}) {
		t.Fatalf("got %+v %v", a, err)
	}
}

func TestParseAnswerRefusesWhatIsNoAnswer(t *testing.T) {
	for _, in := range []string{
		``,
		`yes`,
		`{"answer":"maybe","by":"cli"}`,
		`{"answer":"yes","by":"agent"}`,
		`{"answer":"yes"}`,
		`{"answer":"yes","by":"cli","message":"a message with yes"}`,
		`{"answer":"no","by":"cli","message":"` + strings.Repeat("m", AnswerMessageMax+1) + `"}`,
		`{"answer":"no","by":"cli","message":"\u001b[2J"}`,
		`{"answer":"yes","by":"cli","extra":1}`,
		`{"answer":"yes","by":"cli"}{"answer":"no","by":"cli"}`,
		`{"answer":"yes","by":"cli","pad":"` + strings.Repeat(" ", 5000) + `"}`,
	} {
		if a, err := ParseAnswer([]byte(in)); err == nil {
			t.Errorf("%.60q taken as %+v", in, a)
		}
	}
}

func TestRequestFilesAreNamedForTheRequest(t *testing.T) {
	id := NewRequestID()
	if !ValidRequestID(id) {
		t.Fatalf("a new id %q is not valid", id)
	}
	for _, bad := range []string{"", "../../etc/passwd", "ABCDEF0123456789", "0123456789abcde", "0123456789abcdef0", "*"} {
		if ValidRequestID(bad) {
			t.Errorf("%q taken as a request id", bad)
		}
	}
	if got := PermissionAnswerPath("/box", "0123456789abcdef"); got != "/box/permission-0123456789abcdef.answer" {
		t.Fatalf("answer path %s", got)
	}
}

func TestHeldRequestIsTheNewestStillHeld(t *testing.T) {
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return now.Add(d).Format(time.RFC3339Nano) }
	found := []PermissionRequest{
		{ID: "aaaaaaaaaaaaaaaa", Until: at(5 * time.Minute)},
		{ID: "bbbbbbbbbbbbbbbb", Until: at(9 * time.Minute)},
		{ID: "cccccccccccccccc", Until: at(-time.Second)},
		{ID: "dddddddddddddddd", Until: "never"},
	}
	if r, ok := HeldRequest(found, now); !ok || r.ID != "bbbbbbbbbbbbbbbb" {
		t.Fatalf("got %+v %v", r, ok)
	}
	if _, ok := HeldRequest(found[2:], now); ok {
		t.Fatal("a request past its hold is held")
	}
}

func TestHeldInReadsOnlyRequestsNamedForThemselves(t *testing.T) {
	box := t.TempDir()
	now := time.Now()
	write := func(name string, r PermissionRequest) {
		data, _ := json.Marshal(r)
		if err := os.WriteFile(filepath.Join(box, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	until := now.Add(time.Minute).Format(time.RFC3339Nano)
	write("permission-1111111111111111.json", PermissionRequest{ID: "2222222222222222", Until: until})
	write("permission-x.json", PermissionRequest{ID: "x", Until: until})
	if err := os.WriteFile(filepath.Join(box, "permission-3333333333333333.json"), bytes.Repeat([]byte("{"), 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, ok := HeldIn(box, now); ok {
		t.Fatalf("held %+v", r)
	}
	write("permission-4444444444444444.json", PermissionRequest{ID: "4444444444444444", What: "Bash(ls)\x1b[2J", Until: until})
	if r, ok := HeldIn(box, now); !ok || r.ID != "4444444444444444" || r.What != "Bash(ls) [2J" {
		t.Fatalf("got %+v %v", r, ok)
	}
}

func TestPermissionHold(t *testing.T) {
	zero, five := 0, 5
	for _, c := range []struct {
		set  *int
		want time.Duration
	}{{nil, DefaultPermissionHold}, {&zero, 0}, {&five, 5 * time.Second}} {
		if got := (&State{PermissionHoldSeconds: c.set}).PermissionHold(); got != c.want {
			t.Errorf("hold %v: %v, want %v", c.set, got, c.want)
		}
	}
}

func TestClaudeSettingsHoldPermissionRequests(t *testing.T) {
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string
				Timeout int
			}
		}
	}
	if err := json.Unmarshal(claudeHookSettings([]string{"/bin/swarm", "agent-event"}, 90*time.Second, ""), &doc); err != nil {
		t.Fatal(err)
	}
	h := doc.Hooks[EventPermissionRequest]
	if len(h) != 1 || h[0].Hooks[0].Command != "/bin/swarm agent-event --hold 90" || h[0].Hooks[0].Timeout != 120 {
		t.Fatalf("PermissionRequest hook: %+v", h)
	}
	if got := doc.Hooks[EventStop][0].Hooks[0].Command; strings.Contains(got, "--hold") {
		t.Fatalf("Stop holds: %s", got)
	}
}
