package fakeapi

import (
	"bytes"
	"strings"
	"time"
)

// Rule answers the model requests that satisfy When with Reply. The first rule that matches
// (and is not used up) answers; with none, the default reply does.
type Rule struct {
	When Match
	// Times limits how often the rule answers; 0 means no limit.
	Times int
	Reply Reply
}

// Match is a condition on a model request. Every field that is set must hold.
//
// A rule answers either the agent's turns (requests that carry tools; the default) or,
// with Side, only tool-less side requests, never both: Claude Code's title request quotes
// the user's prompt, so a rule keyed on the prompt would also fire on it, answer it, and
// use up its Times before the real turn arrives.
type Match struct {
	Side              bool   // match tool-less side requests instead of the agent's turns
	API               string // Anthropic, OpenAI, OpenAIChat or Gemini
	Contains          string // anywhere in the raw request body (JSON-escaped as sent)
	LastBlockContains string // in Request.LastBlock
	ToolResult        bool   // if true: Request.LastIsToolResult
	MainCall          int    // exact Request.MainCall
	Call              int    // exact Request.Call
	// Func is any further condition. It runs while no other request can be numbered, so it
	// must be quick; it may call the Server's methods.
	Func func(Request) bool
}

// Reply says how to answer. A reply with neither Text nor ToolUse (and no error status)
// gets the default text, so a rule may set only Delay or Usage. The default text is
// DefaultText for the agent's turns and TitleText for tool-less side requests.
type Reply struct {
	Text string
	// ToolUse asks the agent to run a tool: a tool_use block (stop_reason "tool_use") for
	// Anthropic, a function_call output item for Responses, a tool_calls entry (finish_reason
	// "tool_calls") for Chat Completions, a functionCall part for Gemini.
	// It follows Text if both are set.
	ToolUse *ToolUse

	Delay      time.Duration // before anything is sent
	ChunkDelay time.Duration // between streamed chunks
	// Hang never answers: the request is held until the client goes away or Close.
	Hang bool
	// StallAfterStart sends the stream's first event (message_start, response.created, the
	// Chat Completions chunk with the assistant role, Gemini's first empty piece)
	// and then holds the stream like Hang. A non-streaming request just hangs.
	StallAfterStart bool

	// Status >= 400 answers with an error body in the API's own shape; lower values are
	// ignored. ErrorType and ErrorMessage default from the status and the API (Anthropic
	// 429: rate_limit_error, 529: overloaded_error, 500: api_error; OpenAI 429:
	// rate_limit_exceeded, which Responses and Chat Completions answers also carry as
	// "code").
	Status       int
	ErrorType    string
	ErrorMessage string
	// Headers are added to the answer, e.g. "retry-after" on a 429.
	Headers map[string]string

	Usage *Usage // nil: 1000 input, 50 output, 500 cache read, 0 cache write
	Model string // model name echoed back; default: the requested model
}

// ToolUse is a tool call. For Claude Code the shell tool is "Bash" with input
// {"command": ...}; for Codex it is "exec_command" with {"cmd": ...}; for opencode "bash"
// with {"command": ..., "description": ...}; for Gemini CLI "run_shell_command" with
// {"command": ...}; for the Chat Completions agents, their own shell tool's name (Qwen Code:
// "run_shell_command" with {"command": ...}).
type ToolUse struct {
	Name  string
	Input map[string]any
}

// Usage is the token accounting of one answer. Anthropic gets all four; Responses gets
// Input, Output and CacheRead (as cached_tokens), and so do Chat Completions (as
// prompt_tokens, completion_tokens and prompt_tokens_details.cached_tokens).
type Usage struct {
	Input, Output, CacheRead, CacheWrite int
}

// defaultUsage is what a nil Reply.Usage means.
var defaultUsage = Usage{Input: 1000, Output: 50, CacheRead: 500}

// Default texts. The only tool-less requests both CLIs send are session-title requests,
// and both parse the answer as JSON with a "title" (Codex even demands it with a JSON
// schema, and shows a warning otherwise).
const (
	DefaultText = "Hello from the fake API."
	TitleText   = `{"title": "Session"}`
)

// holds reports whether every set condition is true for r.
func (m Match) holds(r *Request) bool {
	switch {
	case m.Side == r.HasTools,
		m.API != "" && m.API != r.API,
		m.Contains != "" && !bytes.Contains(r.Body, []byte(m.Contains)),
		m.LastBlockContains != "" && !strings.Contains(r.LastBlock, m.LastBlockContains),
		m.ToolResult && !r.LastIsToolResult,
		m.MainCall != 0 && m.MainCall != r.MainCall,
		m.Call != 0 && m.Call != r.Call:
		return false
	}
	return m.Func == nil || m.Func(*r)
}

// slot is a rule with its use count; counts change only under Server.arrive.
type slot struct {
	rule Rule
	used int
}

func slots(rules []Rule) []*slot {
	out := make([]*slot, len(rules))
	for i, r := range rules {
		out[i] = &slot{rule: r}
	}
	return out
}

// choose picks the reply for r and fills in its defaults. The index is -1 for the default.
func choose(rules []*slot, r *Request) (Reply, int) {
	for i, sl := range rules {
		if sl.rule.Times > 0 && sl.used >= sl.rule.Times {
			continue
		}
		if sl.rule.When.holds(r) {
			sl.used++
			return sl.rule.Reply.resolve(r), i
		}
	}
	return Reply{}.resolve(r), -1
}

// resolve fills in what the reply leaves to the defaults.
func (p Reply) resolve(r *Request) Reply {
	if p.Status < 400 && p.Text == "" && p.ToolUse == nil {
		p.Text = DefaultText
		if !r.HasTools {
			p.Text = TitleText
		}
	}
	if p.StallAfterStart && !r.Stream {
		p.Hang = true // a plain JSON answer has no start to send
	}
	if p.Usage == nil {
		u := defaultUsage
		p.Usage = &u
	}
	if p.Model == "" {
		p.Model = r.Model
	}
	if p.Model == "" {
		p.Model = map[string]string{Anthropic: "claude-fake", OpenAI: "gpt-fake", OpenAIChat: "gpt-fake",
			Gemini: "gemini-fake"}[r.API]
	}
	return p
}

// status is what the request log records: 0 for a reply that never answers.
func (p Reply) status() int {
	switch {
	case p.Hang:
		return 0
	case p.isError():
		return p.Status
	}
	return 200
}

func (p Reply) isError() bool { return p.Status >= 400 }

// wait is how long to hold the request before answering; -1 is forever.
func (p Reply) wait() time.Duration {
	if p.Hang {
		return -1
	}
	return p.Delay
}

// errorType is the API's usual error type for a status, unless the reply names one.
func (p Reply) errorType(api string) string {
	if p.ErrorType != "" {
		return p.ErrorType
	}
	openAI := api == OpenAI || api == OpenAIChat
	types := anthropicErrors
	if openAI {
		types = openAIErrors
	}
	if t, ok := types[p.Status]; ok {
		return t
	}
	if openAI {
		return "server_error"
	}
	return "api_error"
}

func (p Reply) errorMessage(api string) string {
	if p.ErrorMessage != "" {
		return p.ErrorMessage
	}
	return "fake API: simulated " + p.errorType(api)
}

var anthropicErrors = map[int]string{
	400: "invalid_request_error",
	401: "authentication_error",
	403: "permission_error",
	404: "not_found_error",
	413: "request_too_large",
	429: "rate_limit_error",
	500: "api_error",
	529: "overloaded_error",
}

var openAIErrors = map[int]string{
	400: "invalid_request_error",
	401: "invalid_api_key",
	403: "permission_denied",
	404: "not_found",
	429: "rate_limit_exceeded",
	500: "server_error",
	503: "server_error",
}
