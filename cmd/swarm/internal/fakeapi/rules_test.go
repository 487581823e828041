package fakeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// replyText posts body and returns the text the fake answered with (non-streaming).
func replyText(t *testing.T, srv *Server, path string, body map[string]any) string {
	t.Helper()
	_, data := post(t, srv, path, body)
	var answer struct {
		Content []struct{ Text string }                     // Anthropic
		Output  []struct{ Content []struct{ Text string } } // Responses
	}
	if err := json.Unmarshal(data, &answer); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	switch {
	case len(answer.Content) > 0:
		return answer.Content[0].Text
	case len(answer.Output) > 0 && len(answer.Output[0].Content) > 0:
		return answer.Output[0].Content[0].Text
	}
	t.Fatalf("no text in %s", data)
	return ""
}

// fetch posts body from any goroutine and returns the answer's body.
func fetch(ctx context.Context, srv *Server, path string, body map[string]any) (string, error) {
	js, err := json.Marshal(body)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+path, bytes.NewReader(js))
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return string(data), err
}

func TestRuleMatching(t *testing.T) {
	toolResult := map[string]any{"type": "tool_result", "tool_use_id": "x", "content": "created"}
	srv := Start(t,
		Rule{When: Match{ToolResult: true}, Reply: Reply{Text: "after tool"}},
		Rule{When: Match{LastBlockContains: "once"}, Times: 1, Reply: Reply{Text: "first once"}},
		Rule{When: Match{MainCall: 4}, Reply: Reply{Text: "main four"}},
		Rule{When: Match{Call: 6}, Reply: Reply{Text: "call six"}},
		Rule{When: Match{API: OpenAI, Contains: "needle"}, Reply: Reply{Text: "openai needle"}},
		Rule{When: Match{Func: func(r Request) bool { return r.Model == "special" }}, Reply: Reply{Text: "func"}},
		Rule{When: Match{Side: true, LastBlockContains: "custom title"}, Reply: Reply{Text: "side rule"}},
	)
	special := claudeBody(false, true, textBlock("x"))
	special["model"] = "special"
	steps := []struct {
		name string
		path string
		body map[string]any
		want string
	}{
		{"tool result", "/v1/messages", claudeBody(false, true, toolResult), "after tool"},
		{"times 1", "/v1/messages", claudeBody(false, true, textBlock("do it once")), "first once"},
		{"times used up", "/v1/messages", claudeBody(false, true, textBlock("do it once")), DefaultText},
		// A side request quoting the prompt must neither match nor count as a main call.
		{"side default", "/v1/messages", claudeBody(false, false, textBlock("once more")), TitleText},
		{"main call 4", "/v1/messages", claudeBody(false, true, textBlock("x")), "main four"},
		{"call 6", "/v1/messages", claudeBody(false, true, textBlock("x")), "call six"},
		// Claude Code merges a prompt typed after a failed turn into the old user message.
		{"only the last block", "/v1/messages", claudeBody(false, true, textBlock("do it once"), textBlock("hi")), DefaultText},
		{"api and contains", "/v1/responses", codexBody(false, true, userItem("a needle")), "openai needle"},
		{"contains needs api", "/v1/messages", claudeBody(false, true, textBlock("a needle")), DefaultText},
		{"func", "/v1/messages", special, "func"},
		{"side rule", "/v1/responses", codexBody(false, false, userItem("custom title please")), "side rule"},
		{"function_call_output", "/v1/responses", codexBody(false, true, userItem("x"),
			map[string]any{"type": "function_call", "call_id": "c", "name": "exec_command", "arguments": "{}"},
			map[string]any{"type": "function_call_output", "call_id": "c", "output": "done"}), "after tool"},
	}
	for _, st := range steps {
		if got := replyText(t, srv, st.path, st.body); got != st.want {
			t.Errorf("%s: got %q, want %q", st.name, got, st.want)
		}
	}
	reqs := srv.Requests()
	if reqs[3].MainCall != 0 || reqs[4].MainCall != 4 || reqs[5].Call != 6 || reqs[11].LastBlock != "done" ||
		!reqs[11].LastIsToolResult || reqs[11].System != "you are codex" || reqs[0].LastBlock != "created" {
		t.Errorf("log:\n%s", srv.Summary())
	}
}

func TestSetRulesMidRun(t *testing.T) {
	srv := Start(t, Rule{Times: 1, Reply: Reply{Text: "one"}})
	body := claudeBody(false, true, textBlock("x"))
	if got := replyText(t, srv, "/v1/messages", body); got != "one" {
		t.Fatalf("got %q", got)
	}
	srv.SetRules(Rule{Times: 1, Reply: Reply{Text: "two"}})
	for _, want := range []string{"two", DefaultText} {
		if got := replyText(t, srv, "/v1/messages", body); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	if r := srv.Requests()[1]; r.Rule != 0 || r.MainCall != 2 {
		t.Errorf("after SetRules: %+v", r)
	}
}

// Rules count exactly and calls are numbered without gaps when requests race.
func TestConcurrentRequests(t *testing.T) {
	srv := Start(t, Rule{Times: 3, Reply: Reply{Text: "limited"}})
	var wg sync.WaitGroup
	var mu sync.Mutex
	limited := 0
	for i := range 24 {
		wg.Go(func() {
			path, body := "/v1/messages", claudeBody(i%3 == 0, true, textBlock("x"))
			if i%2 == 1 {
				path, body = "/v1/responses", codexBody(i%3 == 0, true, userItem("x"))
			}
			data, err := fetch(context.Background(), srv, path, body)
			if err != nil {
				t.Error(err)
			}
			if strings.Contains(data, "limited") {
				mu.Lock()
				limited++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if limited != 3 {
		t.Errorf("rule with Times 3 answered %d times", limited)
	}
	for i, r := range srv.Requests() {
		if r.Call != i+1 || r.MainCall != i+1 {
			t.Errorf("request %d numbered %d/%d", i, r.Call, r.MainCall)
		}
	}
}

func TestWaitFor(t *testing.T) {
	srv := Start(t, Rule{Reply: Reply{Delay: 20 * time.Millisecond}})
	if _, ok := srv.WaitFor(10*time.Millisecond, func(Request) bool { return true }); ok {
		t.Fatal("WaitFor matched an empty log")
	}
	done := make(chan error, 1)
	go func() {
		_, err := fetch(context.Background(), srv, "/v1/messages", claudeBody(false, true, textBlock("later")))
		done <- err
	}()
	r, ok := srv.WaitFor(5*time.Second, func(r Request) bool { return r.LastBlock == "later" })
	if !ok || r.Call != 1 {
		t.Errorf("WaitFor: %v %+v", ok, r)
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// hung starts a request that the fake holds and waits until the fake has it.
func hung(t *testing.T, srv *Server, ctx context.Context, prompt string, stream bool) chan error {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, err := fetch(ctx, srv, "/v1/messages", claudeBody(stream, true, textBlock(prompt)))
		errc <- err
	}()
	if _, ok := srv.WaitFor(5*time.Second, func(r Request) bool { return r.LastBlock == prompt }); !ok {
		t.Fatalf("%s never arrived", prompt)
	}
	return errc
}

func hangRules() []Rule {
	return []Rule{
		{When: Match{LastBlockContains: "hang"}, Reply: Reply{Hang: true}},
		{When: Match{LastBlockContains: "stall"}, Reply: Reply{StallAfterStart: true}},
		{When: Match{LastBlockContains: "slow"}, Reply: Reply{Delay: time.Hour}},
		{When: Match{LastBlockContains: "drip"}, Reply: Reply{ChunkDelay: time.Hour}},
	}
}

func TestHangReleasedByClientCancel(t *testing.T) {
	srv := Start(t, hangRules()...)
	for _, prompt := range []string{"hang", "stall", "slow", "drip"} {
		ctx, cancel := context.WithCancel(context.Background())
		errc := hung(t, srv, ctx, prompt, true)
		if srv.activeCount() != 1 {
			t.Errorf("%s: %d handlers running", prompt, srv.activeCount())
		}
		cancel()
		if err := <-errc; err == nil {
			t.Errorf("%s: request finished without error", prompt)
		}
		eventually(t, prompt+" handler to return", func() bool { return srv.activeCount() == 0 })
	}
	if r := srv.Requests()[0]; r.Status != 0 {
		t.Errorf("a hung request is logged with status %d", r.Status)
	}
}

func TestHangReleasedByClose(t *testing.T) {
	srv := Start(t, hangRules()...)
	var errs []chan error
	for i, prompt := range []string{"hang", "stall", "slow", "drip"} {
		errs = append(errs, hung(t, srv, context.Background(), fmt.Sprintf("%s %d", prompt, i), i%2 == 0))
	}
	start := time.Now()
	srv.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v", d)
	}
	if n := srv.activeCount(); n != 0 {
		t.Errorf("%d handlers still running after Close", n)
	}
	for _, errc := range errs {
		select {
		case <-errc:
		case <-time.After(5 * time.Second):
			t.Fatal("a client was not released by Close")
		}
	}
	srv.Close() // a second Close is harmless
	if _, ok := srv.WaitFor(time.Hour, func(Request) bool { return false }); ok {
		t.Error("WaitFor after Close matched")
	}
}

func TestDelays(t *testing.T) {
	const d = 40 * time.Millisecond
	srv := Start(t,
		Rule{When: Match{LastBlockContains: "delay"}, Reply: Reply{Delay: d}},
		// DefaultText is 24 bytes: two text chunks, so one pause between them.
		Rule{When: Match{LastBlockContains: "drip"}, Reply: Reply{ChunkDelay: d}},
	)
	for _, prompt := range []string{"delay", "drip"} {
		start := time.Now()
		_, body := post(t, srv, "/v1/messages", claudeBody(true, true, textBlock(prompt)))
		if took := time.Since(start); took < d {
			t.Errorf("%s answered after %v, want at least %v", prompt, took, d)
		}
		if a := foldClaude(t, events(t, body)); a.text != DefaultText {
			t.Errorf("%s: text %q", prompt, a.text)
		}
	}
}
