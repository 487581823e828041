package fakeapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// event is one parsed server-sent event.
type event struct {
	name string
	data map[string]any
}

// send posts body (a string, or a value marshaled to JSON) and returns the response.
func send(t *testing.T, ctx context.Context, srv *Server, method, path string, body any) (*http.Response, error) {
	t.Helper()
	js, ok := body.(string)
	if !ok {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		js = string(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, srv.URL()+path, strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return http.DefaultClient.Do(req)
}

// post sends body and reads the whole answer.
func post(t *testing.T, srv *Server, path string, body any) (*http.Response, []byte) {
	t.Helper()
	resp, err := send(t, context.Background(), srv, http.MethodPost, path, body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// events parses an SSE stream and checks that every data object names its event.
func events(t *testing.T, body []byte) []event {
	t.Helper()
	var out []event
	var cur event
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
		case line == "" && cur.name != "":
			if cur.data["type"] != cur.name {
				t.Errorf("event %s has type %v", cur.name, cur.data["type"])
			}
			out = append(out, cur)
			cur = event{}
		}
	}
	return out
}

func names(evs []event) string {
	var n []string
	for _, e := range evs {
		n = append(n, e.name)
	}
	return strings.Join(n, " ")
}

// obj walks nested JSON objects along keys.
func obj(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// claudeBody is a Messages API request whose last user message has the given blocks.
func claudeBody(stream, tools bool, blocks ...any) map[string]any {
	b := map[string]any{
		"model": "claude-test", "stream": stream, "max_tokens": 100, "system": "be brief",
		"messages": []any{map[string]any{"role": "user", "content": blocks}},
	}
	if tools {
		b["tools"] = []any{map[string]any{"name": "Bash", "input_schema": map[string]any{}}}
	}
	return b
}

func textBlock(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// codexBody is a Responses API request ending with the given input items.
func codexBody(stream, tools bool, items ...any) map[string]any {
	in := append([]any{map[string]any{"type": "message", "role": "developer",
		"content": []any{map[string]any{"type": "input_text", "text": "you are codex"}}}}, items...)
	b := map[string]any{"model": "gpt-test", "stream": stream, "input": in, "tools": []any{}}
	if tools {
		b["tools"] = []any{map[string]any{"type": "function", "name": "exec_command"}}
	}
	return b
}

func userItem(s string) map[string]any {
	return map[string]any{"type": "message", "role": "user",
		"content": []any{map[string]any{"type": "input_text", "text": s}}}
}

// claudeAnswer is a streamed Messages answer put back together.
type claudeAnswer struct {
	text, toolName, toolInput, stop string
	startUsage, endUsage            map[string]any
}

func foldClaude(t *testing.T, evs []event) claudeAnswer {
	t.Helper()
	var a claudeAnswer
	for _, e := range evs {
		switch e.name {
		case "message_start":
			a.startUsage, _ = obj(e.data, "message", "usage").(map[string]any)
		case "content_block_start":
			if obj(e.data, "content_block", "type") == "tool_use" {
				a.toolName, _ = obj(e.data, "content_block", "name").(string)
			}
		case "content_block_delta":
			d, _ := e.data["delta"].(map[string]any)
			txt, _ := d["text"].(string)
			js, _ := d["partial_json"].(string)
			a.text, a.toolInput = a.text+txt, a.toolInput+js
		case "message_delta":
			a.stop, _ = obj(e.data, "delta", "stop_reason").(string)
			a.endUsage, _ = e.data["usage"].(map[string]any)
		}
	}
	return a
}

// activeCount is how many handlers are running.
func (s *Server) activeCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}
