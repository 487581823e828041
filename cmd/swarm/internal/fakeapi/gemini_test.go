package fakeapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// geminiBody is a generateContent request: a user turn, and with result a model turn that
// called the shell and the user turn that answers it.
func geminiBody(tools bool, text string, result bool) map[string]any {
	contents := []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": text}}}}
	if result {
		contents = append(contents,
			map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]any{}}}}},
			map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "run_shell_command", "response": map[string]any{"output": "created"}}}}})
	}
	b := map[string]any{"contents": contents, "systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "be brief"}}}}
	if tools {
		b["tools"] = []any{map[string]any{"functionDeclarations": []any{map[string]any{"name": "run_shell_command"}}}}
	}
	return b
}

// dataEvents parses a stream of unnamed server-sent events.
func dataEvents(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			out = append(out, m)
		}
	}
	return out
}

// firstPart is the first part of a response's first candidate, and its finish reason.
func firstPart(resp map[string]any) (map[string]any, any) {
	cand := obj(resp, "candidates").([]any)[0]
	part, _ := obj(cand, "content", "parts").([]any)[0].(map[string]any)
	return part, obj(cand, "finishReason")
}

func TestGeminiStream(t *testing.T) {
	srv := Start(t,
		Rule{When: Match{ToolResult: true}, Reply: Reply{Text: "Done, twenty bytes and more."}},
		Rule{When: Match{LastBlockContains: "file"}, Reply: Reply{ToolUse: &ToolUse{Name: "run_shell_command",
			Input: map[string]any{"command": "touch DONE"}}, Usage: &Usage{Input: 2000, Output: 100, CacheRead: 800}}},
	)
	path := "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
	resp, body := post(t, srv, path, geminiBody(true, "please make the file", false))
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs := dataEvents(t, body)
	part, finish := firstPart(evs[len(evs)-1])
	if len(evs) != 1 || obj(part, "functionCall", "name") != "run_shell_command" ||
		obj(part, "functionCall", "args", "command") != "touch DONE" || finish != "STOP" {
		t.Errorf("events %v", evs)
	}
	u := obj(evs[0], "usageMetadata")
	if obj(u, "promptTokenCount") != 2000.0 || obj(u, "candidatesTokenCount") != 100.0 || obj(u, "cachedContentTokenCount") != 800.0 {
		t.Errorf("usage %v", u)
	}

	_, body = post(t, srv, path, geminiBody(true, "please make the file", true))
	var text string
	evs = dataEvents(t, body)
	for i, e := range evs {
		p, finish := firstPart(e)
		text += p["text"].(string)
		if (finish == "STOP") != (i == len(evs)-1) {
			t.Errorf("event %d of %d has finishReason %v", i, len(evs), finish)
		}
	}
	if text != "Done, twenty bytes and more." || len(evs) < 2 {
		t.Errorf("text %q in %d events", text, len(evs))
	}
	r := srv.Requests()[1]
	if r.API != Gemini || r.Model != "gemini-2.5-flash" || !r.Stream || !r.HasTools || !r.LastIsToolResult ||
		r.MainCall != 2 || r.System != "be brief" || !strings.Contains(r.LastBlock, "created") {
		t.Errorf("logged %+v", r)
	}
}

func TestGeminiJSONCountAndErrors(t *testing.T) {
	srv := Start(t, Rule{When: Match{LastBlockContains: "429"}, Reply: Reply{Status: 429}})
	_, body := post(t, srv, "/v1beta/models/gemini-test:generateContent", geminiBody(false, "route this", false))
	var resp map[string]any
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if part, finish := firstPart(resp); part["text"] != TitleText || finish != "STOP" || resp["modelVersion"] != "gemini-test" {
		t.Errorf("side answer %s", body)
	}
	r, data := post(t, srv, "/v1beta/models/gemini-test:streamGenerateContent?alt=sse", geminiBody(true, "429", false))
	if r.StatusCode != 429 || !strings.Contains(string(data), `"status":"RESOURCE_EXHAUSTED"`) {
		t.Errorf("429: %d %s", r.StatusCode, data)
	}
	r, data = post(t, srv, "/v1beta/models/gemini-test:countTokens", geminiBody(false, strings.Repeat("word ", 400), false))
	if r.StatusCode != 200 || !strings.Contains(string(data), `"totalTokens"`) {
		t.Errorf("countTokens: %d %s", r.StatusCode, data)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || reqs[0].Call != 1 || reqs[0].MainCall != 0 || reqs[0].Stream || reqs[1].Call != 2 || reqs[2].Call != 0 {
		t.Errorf("log %+v", reqs)
	}
	if r, _ := post(t, srv, "/v1beta/models/gemini-test:embedContent", "{}"); r.StatusCode != 404 {
		t.Errorf("embedContent: %d", r.StatusCode)
	}
}
