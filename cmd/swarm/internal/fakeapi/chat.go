package fakeapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// The OpenAI Chat Completions API, as the OpenAI-compatible agents (Qwen Code, Crush,
// Copilot CLI with a provider of its own) call it: POST /v1/chat/completions, or
// /chat/completions when a base URL is given without /v1. A streamed answer is a series of
// plain "data:" chunks, each a chat.completion.chunk holding the next delta, ended by
// "data: [DONE]"; the usage comes in a last chunk with no choices, and only when the request
// asked for it with stream_options.include_usage, as the real API does.

const (
	pathChat       = "/v1/chat/completions"
	pathChatNoV1   = "/chat/completions"
	pathModels     = "/v1/models"
	pathModelsNoV1 = "/models"
)

func isChat(p string) bool   { return p == pathChat || p == pathChatNoV1 }
func isModels(p string) bool { return p == pathModels || p == pathModelsNoV1 }

// chatMessage is a Chat Completions message, with only the fields the fake reads.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string, a list of parts, or null
}

// chatBody is a Chat Completions request, with only the fields the fake reads.
type chatBody struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools    []json.RawMessage `json:"tools"`
	Messages []chatMessage     `json:"messages"`
}

// parseChat fills req from a Chat Completions body. The newest user-side message is the
// last user message, or the last tool message when the agent answers a tool call.
func parseChat(req *Request) error {
	var body chatBody
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return err
	}
	req.Model, req.Stream, req.HasTools = body.Model, body.Stream, len(body.Tools) > 0
	var system []string
	for _, m := range body.Messages {
		if m.Role == "system" || m.Role == "developer" {
			system = append(system, text(m.Content))
		}
	}
	req.System = strings.TrimSpace(strings.Join(system, "\n"))
	for i := len(body.Messages) - 1; i >= 0; i-- {
		switch m := body.Messages[i]; m.Role {
		case "tool":
			req.LastBlock, req.LastIsToolResult = text(m.Content), true
		case "user":
			for _, b := range blocks(m.Content) {
				if b.Type == "text" && b.Text != "" {
					req.LastBlock = b.Text
				}
			}
		default:
			continue
		}
		break
	}
	return nil
}

// includeUsage reports whether a streamed request asked for the usage chunk.
func includeUsage(req *Request) bool {
	var body chatBody
	_ = json.Unmarshal(req.Body, &body)
	return body.StreamOptions != nil && body.StreamOptions.IncludeUsage
}

// chatUsage is the Chat Completions usage object; prompt_tokens counts the cached ones too.
func chatUsage(u *Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":             u.Input,
		"completion_tokens":         u.Output,
		"total_tokens":              u.Input + u.Output,
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.CacheRead},
		"completion_tokens_details": map[string]any{"reasoning_tokens": 0},
	}
}

func finishReason(rep Reply) string {
	if rep.ToolUse != nil {
		return "tool_calls"
	}
	return "stop"
}

// chatToolCall is a finished tool call; its arguments are a JSON string, as the API sends.
func chatToolCall(p part) map[string]any {
	return map[string]any{"id": p.id, "type": "function",
		"function": map[string]any{"name": p.tool.Name, "arguments": p.input()}}
}

// answerChat sends a Chat Completions answer, streamed when the request asked for it.
func (s *Server) answerChat(w http.ResponseWriter, r *http.Request, req *Request, rep Reply) {
	ps := parts(req, rep, "call_")
	head := map[string]any{"id": newID("chatcmpl-", req.Call), "created": time.Now().Unix(),
		"model": rep.Model, "system_fingerprint": "fp_fake"}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
		var calls []any
		for _, p := range ps {
			if p.tool == nil {
				msg["content"] = p.text
			} else {
				calls = append(calls, chatToolCall(p))
			}
		}
		if calls != nil {
			msg["tool_calls"] = calls
		}
		choice := map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(rep), "logprobs": nil}
		writeJSON(w, req.Call, http.StatusOK, with(head, "object", "chat.completion",
			"choices", []any{choice}, "usage", chatUsage(rep.Usage)), rep.Headers)
		return
	}
	st := s.openStream(w, r, req, rep, false)
	usage := includeUsage(req)
	chunk := func(delta map[string]any, finish any) bool {
		c := with(head, "object", "chat.completion.chunk", "choices",
			[]any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}})
		if usage {
			c["usage"] = nil // the real API names it in every chunk, null until the last
		}
		return st.data(c)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	if rep.StallAfterStart {
		st.hold()
		return
	}
	tools := 0
	for _, p := range ps {
		if p.tool == nil {
			st.chunks(p.text, textChunk, func(piece string) bool {
				return chunk(map[string]any{"content": piece}, nil)
			})
			continue
		}
		streamToolCall(st, tools, p, chunk)
		tools++
	}
	chunk(map[string]any{}, finishReason(rep))
	if usage {
		st.data(with(head, "object", "chat.completion.chunk", "choices", []any{}, "usage", chatUsage(rep.Usage)))
	}
	st.done()
}

// streamToolCall sends one tool call: its id and name with empty arguments, then the
// arguments in pieces, each delta naming the call by its index.
func streamToolCall(st *stream, index int, p part, chunk func(map[string]any, any) bool) {
	call := func(fn map[string]any, kv ...any) map[string]any {
		c := with(map[string]any{"index": index, "function": fn}, kv...)
		return map[string]any{"tool_calls": []any{c}}
	}
	chunk(call(map[string]any{"name": p.tool.Name, "arguments": ""}, "id", p.id, "type", "function"), nil)
	st.chunks(p.input(), jsonChunk, func(piece string) bool {
		return chunk(call(map[string]any{"arguments": piece}), nil)
	})
}

// done ends a Chat Completions stream.
func (st *stream) done() {
	if st.ok {
		if _, err := st.w.Write([]byte("data: [DONE]\n\n")); err != nil {
			st.ok = false
		} else if err := st.rc.Flush(); err != nil {
			st.ok = false
		}
	}
}

// models lists the models an OpenAI-compatible client may ask for: the fake's default and
// those SetModels named, so that a client checking its configured model finds it.
func (s *Server) models(w http.ResponseWriter, req *Request) {
	req.API = OpenAIChat
	s.record(req)
	s.mu.Lock()
	ids := append([]string{"gpt-fake"}, s.modelIDs...)
	s.mu.Unlock()
	data := make([]any, len(ids))
	for i, id := range ids {
		data[i] = map[string]any{"id": id, "object": "model", "created": 1700000000, "owned_by": "fakeapi"}
	}
	writeJSON(w, 0, http.StatusOK, map[string]any{"object": "list", "data": data}, nil)
}

// SetModels names the models GET /v1/models lists beside "gpt-fake", for a client that
// checks its configured model before its first request.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modelIDs = append([]string(nil), ids...)
}
