package fakeapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestAnthropicStreamText(t *testing.T) {
	srv := Start(t)
	resp, body := post(t, srv, "/v1/messages?beta=true", claudeBody(true, true, textBlock("hi")))
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs := events(t, body)
	want := "message_start ping content_block_start content_block_delta content_block_delta " +
		"content_block_stop message_delta message_stop"
	if got := names(evs); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	a := foldClaude(t, evs)
	if a.text != DefaultText || a.stop != "end_turn" || a.toolName != "" {
		t.Errorf("answer %+v", a)
	}
	if obj(evs[0].data, "message", "model") != "claude-test" {
		t.Errorf("model not echoed: %v", evs[0].data)
	}
	for k, v := range map[string]float64{"input_tokens": 1000, "output_tokens": 50,
		"cache_read_input_tokens": 500, "cache_creation_input_tokens": 0} {
		if a.endUsage[k] != v || (k != "output_tokens" && a.startUsage[k] != v) {
			t.Errorf("usage %s: start %v end %v, want %v", k, a.startUsage[k], a.endUsage[k], v)
		}
	}
	r := srv.Requests()[0]
	if r.Call != 1 || r.MainCall != 1 || r.API != Anthropic || r.Path != "/v1/messages" || r.Method != "POST" ||
		!r.Stream || !r.HasTools || r.LastBlock != "hi" || r.System != "be brief" || r.Model != "claude-test" ||
		r.Status != 200 || r.Rule != -1 || r.Time.IsZero() || !json.Valid(r.Body) {
		t.Errorf("logged %+v", r)
	}
}

func TestAnthropicStreamToolUse(t *testing.T) {
	input := map[string]any{"command": "touch DONE && echo 'é<ü>'", "description": "make it"}
	srv := Start(t, Rule{Reply: Reply{
		Text: "Creating it now — ünïcödé text that spans chunks.", ToolUse: &ToolUse{Name: "Bash", Input: input},
		Usage: &Usage{Input: 7, Output: 8, CacheRead: 9, CacheWrite: 10}, Model: "claude-other",
	}})
	_, body := post(t, srv, "/v1/messages", claudeBody(true, true, textBlock("go")))
	evs := events(t, body)
	a := foldClaude(t, evs)
	if a.text != "Creating it now — ünïcödé text that spans chunks." || a.toolName != "Bash" || a.stop != "tool_use" {
		t.Errorf("answer %+v", a)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(a.toolInput), &got); err != nil || got["command"] != input["command"] {
		t.Errorf("tool input %q: %v", a.toolInput, err)
	}
	if strings.Count(names(evs), "content_block_start") != 2 {
		t.Errorf("want a text and a tool_use block: %s", names(evs))
	}
	want := map[string]any{"input_tokens": 7.0, "output_tokens": 8.0, "cache_read_input_tokens": 9.0,
		"cache_creation_input_tokens": 10.0}
	for k, v := range want {
		if a.endUsage[k] != v {
			t.Errorf("usage %s = %v, want %v", k, a.endUsage[k], v)
		}
	}
	if obj(evs[0].data, "message", "model") != "claude-other" {
		t.Errorf("model override lost")
	}
}

func TestAnthropicJSON(t *testing.T) {
	srv := Start(t, Rule{Reply: Reply{ToolUse: &ToolUse{Name: "Bash"}}})
	resp, body := post(t, srv, "/v1/messages", claudeBody(false, true, textBlock("go")))
	var msg struct {
		Type       string `json:"type"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Type, ID, Name string
			Input          map[string]any
		}
		Usage map[string]int
	}
	if err := json.Unmarshal(body, &msg); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	if msg.Type != "message" || msg.StopReason != "tool_use" || len(msg.Content) != 1 ||
		msg.Content[0].Type != "tool_use" || msg.Content[0].ID == "" || msg.Content[0].Input == nil {
		t.Errorf("message %s", body)
	}
	if msg.Usage["output_tokens"] != 50 || msg.Usage["cache_read_input_tokens"] != 500 {
		t.Errorf("usage %v", msg.Usage)
	}
}

func TestResponsesStream(t *testing.T) {
	srv := Start(t,
		Rule{When: Match{LastBlockContains: "file"}, Reply: Reply{
			ToolUse: &ToolUse{Name: "exec_command", Input: map[string]any{"cmd": "touch DONE && echo created"}},
			Usage:   &Usage{Input: 2000, Output: 100, CacheRead: 800}}},
		Rule{Reply: Reply{Text: "A reply long enough to need several deltas."}},
	)
	resp, body := post(t, srv, "/v1/responses", codexBody(true, true, userItem("please make the file")))
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	evs := events(t, body)
	var args string
	for i, e := range evs {
		if e.data["sequence_number"] != float64(i) {
			t.Errorf("event %d has sequence_number %v", i, e.data["sequence_number"])
		}
		if e.name == "response.function_call_arguments.delta" {
			args += e.data["delta"].(string)
		}
	}
	done := evs[len(evs)-2].data["item"]
	if args != `{"cmd":"touch DONE && echo created"}` || obj(done, "arguments") != args ||
		obj(done, "type") != "function_call" || obj(done, "name") != "exec_command" || obj(done, "call_id") == "" {
		t.Errorf("arguments %q, done item %v", args, done)
	}
	last := evs[len(evs)-1]
	if evs[0].name != "response.created" || last.name != "response.completed" {
		t.Errorf("events: %s", names(evs))
	}
	u := obj(last.data, "response", "usage")
	if obj(u, "input_tokens") != 2000.0 || obj(u, "output_tokens") != 100.0 || obj(u, "total_tokens") != 2100.0 ||
		obj(u, "input_tokens_details", "cached_tokens") != 800.0 || obj(u, "output_tokens_details", "reasoning_tokens") != 0.0 {
		t.Errorf("usage %v", u)
	}

	_, body = post(t, srv, "/v1/responses", codexBody(true, true, userItem("hello")))
	var text string
	for _, e := range events(t, body) {
		if e.name == "response.output_text.delta" {
			text += e.data["delta"].(string)
		}
	}
	if text != "A reply long enough to need several deltas." {
		t.Errorf("text %q", text)
	}
}

func TestResponsesJSON(t *testing.T) {
	srv := Start(t)
	_, body := post(t, srv, "/v1/responses", map[string]any{"model": "gpt-test", "input": "hi",
		"tools": []any{map[string]any{"type": "function", "name": "exec_command"}}})
	var resp struct {
		Status string
		Output []struct {
			Type    string
			Content []struct{ Type, Text string }
		}
		Usage struct {
			InputTokens int `json:"input_tokens"`
		}
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Status != "completed" || len(resp.Output) != 1 || resp.Output[0].Content[0].Text != DefaultText ||
		resp.Usage.InputTokens != 1000 {
		t.Errorf("response %s", body)
	}
	if r := srv.Requests()[0]; r.API != OpenAI || r.LastBlock != "hi" || r.Stream {
		t.Errorf("logged %+v", r)
	}
}

func TestErrorReplies(t *testing.T) {
	srv := Start(t,
		Rule{When: Match{LastBlockContains: "429"}, Reply: Reply{Status: 429, Headers: map[string]string{
			"retry-after": "3", "anthropic-ratelimit-requests-reset": "2030-01-01T00:00:00Z"}}},
		Rule{When: Match{LastBlockContains: "529"}, Reply: Reply{Status: 529}},
		Rule{When: Match{LastBlockContains: "500"}, Reply: Reply{Status: 500, ErrorType: "odd_error", ErrorMessage: "boom"}},
	)
	check := func(path string, body any, status int, header, want string) {
		t.Helper()
		resp, data := post(t, srv, path, body)
		if resp.StatusCode != status || !strings.Contains(string(data), want) {
			t.Errorf("%s: %d %s, want %d with %s", path, resp.StatusCode, data, status, want)
		}
		if header != "" && resp.Header.Get(header) == "" {
			t.Errorf("%s: no %s header", path, header)
		}
	}
	check("/v1/messages", claudeBody(true, true, textBlock("429")), 429, "anthropic-ratelimit-requests-reset",
		`{"error":{"message":"fake API: simulated rate_limit_error","type":"rate_limit_error"},"type":"error"}`)
	check("/v1/messages", claudeBody(true, true, textBlock("529")), 529, "", `"type":"overloaded_error"`)
	check("/v1/messages", claudeBody(false, true, textBlock("500")), 500, "",
		`{"error":{"message":"boom","type":"odd_error"},"type":"error"}`)
	check("/v1/responses", codexBody(true, true, userItem("429")), 429, "retry-after",
		`{"error":{"code":"rate_limit_exceeded","message":"fake API: simulated rate_limit_exceeded","param":null,"type":"rate_limit_exceeded"}}`)
	check("/v1/messages", "{not json", 400, "", `"invalid_request_error"`)
	if got := srv.Requests()[0].Status; got != 429 {
		t.Errorf("logged status %d", got)
	}
}

func TestCountTokens(t *testing.T) {
	srv := Start(t)
	body := claudeBody(false, true, textBlock(strings.Repeat("word ", 400)))
	resp, data := post(t, srv, "/v1/messages/count_tokens?beta=true", body)
	var got struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.Unmarshal(data, &got); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, data)
	}
	if got.InputTokens < 400 || got.InputTokens > 1000 {
		t.Errorf("estimate %d for about 2000 bytes", got.InputTokens)
	}
	r := srv.Requests()[0]
	if r.Call != 0 || r.MainCall != 0 || r.Path != "/v1/messages/count_tokens" || r.Status != 200 {
		t.Errorf("logged %+v", r)
	}
}

func TestUnknownPathsAre404AndLogged(t *testing.T) {
	srv := Start(t)
	resp, err := http.Head(srv.URL() + "/")
	if err != nil || resp.StatusCode != 404 {
		t.Fatalf("HEAD /: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, data := post(t, srv, "/v1/models?x=1", "{}")
	if resp.StatusCode != 404 || !strings.Contains(string(data), "not_found_error") {
		t.Errorf("POST /v1/models: %d %s", resp.StatusCode, data)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Method != "HEAD" || reqs[0].Path != "/" || reqs[0].Status != 404 ||
		reqs[1].Path != "/v1/models" || reqs[1].Call != 0 || string(reqs[1].Body) != "{}" {
		t.Errorf("log %+v", reqs)
	}
}
