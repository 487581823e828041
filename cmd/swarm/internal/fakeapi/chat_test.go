package fakeapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// chatRequest is a Chat Completions request: a system and a user message, and with result an
// assistant tool call and the tool message that answers it.
func chatRequest(stream, usage, tools bool, prompt string, result bool) map[string]any {
	msgs := []any{
		map[string]any{"role": "system", "content": "be brief"},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": prompt}}},
	}
	if result {
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_1",
				"type": "function", "function": map[string]any{"name": "run_shell_command", "arguments": "{}"}}}},
			map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "created"})
	}
	b := map[string]any{"model": "qwen-test", "stream": stream, "messages": msgs}
	if usage {
		b["stream_options"] = map[string]any{"include_usage": true}
	}
	if tools {
		b["tools"] = []any{map[string]any{"type": "function", "function": map[string]any{"name": "run_shell_command"}}}
	}
	return b
}

// chatAnswer is a streamed Chat Completions answer put back together.
type chatAnswer struct {
	text, toolID, toolName, args, finish string
	usage                                map[string]any
	chunks                               int
}

func foldChat(t *testing.T, body []byte) chatAnswer {
	t.Helper()
	if !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
		t.Errorf("stream does not end with [DONE]: %q", body)
	}
	var a chatAnswer
	for _, c := range dataEvents(t, []byte(strings.TrimSuffix(string(body), "data: [DONE]\n\n"))) {
		a.chunks++
		if c["object"] != "chat.completion.chunk" || c["id"] == "" || c["model"] != "qwen-test" {
			t.Errorf("chunk %v", c)
		}
		if u, ok := c["usage"].(map[string]any); ok {
			a.usage = u
		}
		choices, _ := c["choices"].([]any)
		if len(choices) == 0 {
			continue
		}
		if f, ok := obj(choices[0], "finish_reason").(string); ok {
			a.finish = f
		}
		delta, _ := obj(choices[0], "delta").(map[string]any)
		s, _ := delta["content"].(string)
		a.text += s
		for _, tc := range asList(delta["tool_calls"]) {
			if id, ok := obj(tc, "id").(string); ok {
				a.toolID = id
			}
			if n, ok := obj(tc, "function", "name").(string); ok {
				a.toolName = n
			}
			s, _ := obj(tc, "function", "arguments").(string)
			a.args += s
		}
	}
	return a
}

func asList(v any) []any { l, _ := v.([]any); return l }

func TestChatStreamToolCall(t *testing.T) {
	srv := Start(t,
		Rule{When: Match{ToolResult: true}, Reply: Reply{Text: "Done, and a text longer than one chunk."}},
		Rule{When: Match{LastBlockContains: "file"}, Reply: Reply{
			Text:    "Making it.",
			ToolUse: &ToolUse{Name: "run_shell_command", Input: map[string]any{"command": "touch DONE && echo 'é<ü>'"}},
			Usage:   &Usage{Input: 2000, Output: 100, CacheRead: 800}}},
	)
	resp, body := post(t, srv, "/v1/chat/completions", chatRequest(true, true, true, "please make the file", false))
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	a := foldChat(t, body)
	var args map[string]any
	if err := json.Unmarshal([]byte(a.args), &args); err != nil || args["command"] != "touch DONE && echo 'é<ü>'" {
		t.Errorf("arguments %q: %v", a.args, err)
	}
	if a.text != "Making it." || a.toolName != "run_shell_command" || !strings.HasPrefix(a.toolID, "call_") ||
		a.finish != "tool_calls" || a.chunks < 6 {
		t.Errorf("answer %+v", a)
	}
	if obj(a.usage, "prompt_tokens") != 2000.0 || obj(a.usage, "completion_tokens") != 100.0 ||
		obj(a.usage, "total_tokens") != 2100.0 || obj(a.usage, "prompt_tokens_details", "cached_tokens") != 800.0 {
		t.Errorf("usage %v", a.usage)
	}

	// The tool's answer, at the path a base URL without /v1 makes, without a usage chunk.
	_, body = post(t, srv, "/chat/completions", chatRequest(true, false, true, "please make the file", true))
	a = foldChat(t, body)
	if a.text != "Done, and a text longer than one chunk." || a.finish != "stop" || a.toolName != "" || a.usage != nil {
		t.Errorf("answer %+v", a)
	}
	if strings.Contains(string(body), `"usage"`) {
		t.Errorf("usage sent unasked: %s", body)
	}
	r := srv.Requests()[1]
	if r.API != OpenAIChat || r.Path != "/chat/completions" || r.Model != "qwen-test" || !r.Stream || !r.HasTools ||
		!r.LastIsToolResult || r.LastBlock != "created" || r.MainCall != 2 || r.System != "be brief" || r.Rule != 0 {
		t.Errorf("logged %+v", r)
	}
	if r := srv.Requests()[0]; r.LastBlock != "please make the file" || r.LastIsToolResult {
		t.Errorf("logged %+v", r)
	}
}

func TestChatJSON(t *testing.T) {
	srv := Start(t, Rule{When: Match{API: OpenAIChat, LastBlockContains: "run"},
		Reply: Reply{ToolUse: &ToolUse{Name: "run_shell_command"}}})
	var got struct {
		Object  string
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Role      string
				Content   *string
				ToolCalls []struct {
					ID, Type string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
		}
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		}
	}
	_, body := post(t, srv, "/v1/chat/completions", chatRequest(false, false, true, "run it", false))
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	c := got.Choices[0]
	if got.Object != "chat.completion" || c.FinishReason != "tool_calls" || c.Message.Content != nil ||
		len(c.Message.ToolCalls) != 1 || c.Message.ToolCalls[0].Function.Arguments != "{}" ||
		c.Message.ToolCalls[0].Type != "function" || got.Usage.PromptTokens != 1000 {
		t.Errorf("answer %s", body)
	}
	// A side request (no tools) gets the title text; a plain string content is read too.
	side := chatRequest(false, false, false, "", false)
	side["messages"] = []any{map[string]any{"role": "user", "content": "name this session"}}
	_, body = post(t, srv, "/v1/chat/completions", side)
	got.Choices = nil
	if err := json.Unmarshal(body, &got); err != nil || got.Choices[0].Message.Content == nil ||
		*got.Choices[0].Message.Content != TitleText || got.Choices[0].FinishReason != "stop" {
		t.Errorf("side answer %s", body)
	}
	if r := srv.Requests()[1]; r.LastBlock != "name this session" || r.MainCall != 0 || r.Call != 2 {
		t.Errorf("logged %+v", r)
	}
}

func TestChatErrorsAndStall(t *testing.T) {
	srv := Start(t,
		Rule{When: Match{LastBlockContains: "429"}, Reply: Reply{Status: 429, Headers: map[string]string{"retry-after": "3"}}},
		Rule{When: Match{LastBlockContains: "503"}, Reply: Reply{Status: 503}},
		Rule{When: Match{LastBlockContains: "stall"}, Reply: Reply{StallAfterStart: true}},
	)
	resp, data := post(t, srv, "/v1/chat/completions", chatRequest(true, true, true, "429", false))
	if resp.StatusCode != 429 || resp.Header.Get("retry-after") != "3" || string(data) !=
		`{"error":{"code":"rate_limit_exceeded","message":"fake API: simulated rate_limit_exceeded","param":null,"type":"rate_limit_exceeded"}}` {
		t.Errorf("429: %d %s", resp.StatusCode, data)
	}
	if resp, data := post(t, srv, "/v1/chat/completions", chatRequest(false, false, true, "503", false)); resp.StatusCode != 503 ||
		!strings.Contains(string(data), `"type":"server_error"`) {
		t.Errorf("503: %d %s", resp.StatusCode, data)
	}
	if resp, data := post(t, srv, "/v1/chat/completions", "{not json"); resp.StatusCode != 400 ||
		!strings.Contains(string(data), `"invalid_request_error"`) {
		t.Errorf("bad body: %d %s", resp.StatusCode, data)
	}

	// A stalled stream sends the assistant's first chunk, then nothing until the client leaves.
	ctx, cancel := context.WithCancel(context.Background())
	resp, err := send(t, ctx, srv, http.MethodPost, "/v1/chat/completions", chatRequest(true, true, true, "stall", false))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := resp.Body.Read(buf)
	if first := string(buf[:n]); !strings.HasPrefix(first, "data: ") || !strings.Contains(first, `"role":"assistant"`) {
		t.Errorf("first chunk %q", first)
	}
	if srv.activeCount() != 1 {
		t.Errorf("%d handlers running while stalled", srv.activeCount())
	}
	cancel()
	resp.Body.Close()
	eventually(t, "the stalled handler to return", func() bool { return srv.activeCount() == 0 })
}

func TestModels(t *testing.T) {
	srv := Start(t)
	srv.SetModels("qwen3-coder-plus")
	for _, path := range []string{"/v1/models", "/models"} {
		resp, err := http.Get(srv.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Object string
			Data   []struct{ ID, Object string }
		}
		err = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || list.Object != "list" || len(list.Data) != 2 ||
			list.Data[0].ID != "gpt-fake" || list.Data[1].ID != "qwen3-coder-plus" || list.Data[1].Object != "model" {
			t.Errorf("%s: %d %+v %v", path, resp.StatusCode, list, err)
		}
	}
	if r := srv.Requests()[0]; r.Method != "GET" || r.Path != "/v1/models" || r.Call != 0 || r.Status != 200 {
		t.Errorf("logged %+v", r)
	}
}
