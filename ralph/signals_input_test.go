package ralph

import (
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Claude Code's hook input, read as a stream: the fields swarm reads, each bounded, whatever
// else the input holds and however long it is.
func TestReadClaudeEvent(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name, raw string
		want      AgentEvent
		ok        bool
	}{
		{"escapes", `{"hook_event_name":"Stop","last_assistant_message":"a\"b\\c\/d\n\t\u00e9\ud83d\ude00 end"}`,
			AgentEvent{Event: EventStop, Message: "a\"b\\c/d\n\té😀 end"}, true},
		{"white space, and fields swarm does not read", " {\n \"cwd\" : \"/w\", \"stop_hook_active\": false, \"n\": -1.5e3,\n" +
			" \"tools\": [{\"a\": [1, \"]}\"]}], \"hook_event_name\" : \"Stop\" , \"session_id\":\"s\" }\n",
			AgentEvent{Event: EventStop, Session: "s"}, true},
		{"details as an object", `{"hook_event_name":"StopFailure","error":"server_error","error_details":{"status": 500, "m": "x \"y\""}}`,
			AgentEvent{Event: EventStopFailure, Error: "server_error", Message: `{"status":500,"m":"x \"y\""}`}, true},
		{"details as a string", `{"hook_event_name":"StopFailure","error":"rate_limit","error_details":"429 slow down"}`,
			AgentEvent{Event: EventStopFailure, Error: "rate_limit", Message: "429 slow down"}, true},
		{"a key twice: the last", `{"hook_event_name":"Stop","hook_event_name":"StopFailure"}`, AgentEvent{Event: EventStopFailure}, true},
		{"a field that is not a string", `{"hook_event_name":"Stop","session_id":null,"error":{"x":1}}`, AgentEvent{Event: EventStop}, true},
		{"cut short after the event's name", `{"hook_event_name":"Stop","session_id":"s","last_assistant_message":"ha`,
			AgentEvent{Event: EventStop, Session: "s", Message: "ha"}, true},
		{"cut short in the event's name", `{"session_id":"s","hook_event_name":"Sto`, AgentEvent{}, false},
		{"not an object", `["hook_event_name","Stop"]`, AgentEvent{}, false},
		{"empty", ``, AgentEvent{}, false},
		{"a bad escape", `{"hook_event_name":"St\uZZZZop"}`, AgentEvent{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ReadClaudeEvent(strings.NewReader(c.raw), now)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if !ok {
				return
			}
			c.want.At, c.want.Agent = "2026-11-26T12:00:00Z", "claude"
			if got != c.want {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// A last answer of megabytes: the event is read, with the answer's end (where a done marker
// is), and no more than EventMessageKept of it.
func TestReadClaudeEventLong(t *testing.T) {
	long := strings.Repeat("é word\n", 600_000) + "All done. <promise>COMPLETE</promise>"
	in, _ := json.Marshal(map[string]any{"session_id": "s", "hook_event_name": "Stop", "last_assistant_message": long,
		"message": strings.Repeat("m", 3<<20), "transcript_path": strings.Repeat("t", 1<<20)})
	if len(in) < 5<<20 {
		t.Fatalf("input of %d bytes", len(in))
	}
	got, ok := ReadClaudeEvent(strings.NewReader(string(in)), time.Now())
	if !ok || got.Event != EventStop || got.Session != "s" {
		t.Fatalf("got %v %+v", ok, got.Event)
	}
	if len(got.Message) != EventMessageKept || got.Message != strings.Repeat("m", EventMessageKept) {
		t.Errorf("message of %d bytes, want the first %d", len(got.Message), EventMessageKept)
	}
	if len(got.Transcript) != eventFieldKept {
		t.Errorf("transcript path of %d bytes", len(got.Transcript))
	}
	// Without the notification's text, the answer's end is the message.
	in, _ = json.Marshal(map[string]any{"hook_event_name": "Stop", "last_assistant_message": long})
	got, _ = ReadClaudeEvent(strings.NewReader(string(in)), time.Now())
	if !strings.HasSuffix(got.Message, "<promise>COMPLETE</promise>") || len(got.Message) > EventMessageKept {
		t.Errorf("message of %d bytes, ending %q", len(got.Message), got.Message[max(0, len(got.Message)-40):])
	}
	if !strings.HasSuffix(long, got.Message) || strings.ToValidUTF8(got.Message, "") != got.Message {
		t.Errorf("the message is not the answer's end, whole characters")
	}
}

// The input is read as a stream: a long answer costs no more memory than a short one.
func TestReadClaudeEventMemory(t *testing.T) {
	body := io.MultiReader(strings.NewReader(`{"hook_event_name":"Stop","last_assistant_message":"`),
		io.LimitReader(repeatReader('x'), 64<<20), strings.NewReader(`"}`))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	e, ok := ReadClaudeEvent(body, time.Now())
	runtime.ReadMemStats(&after)
	if !ok || len(e.Message) != EventMessageKept {
		t.Fatalf("got %v, a message of %d bytes", ok, len(e.Message))
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("%d bytes allocated to read 64 MB", n)
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
