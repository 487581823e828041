package fakeapi

import (
	"encoding/json"
	"net/http"
)

// Chunk sizes of streamed text and tool input: small enough that every reply arrives in
// several deltas, as real answers do.
const (
	textChunk = 20
	jsonChunk = 16
)

// part is one piece of an answer: text, or a tool call with its id.
type part struct {
	text string
	tool *ToolUse
	id   string
}

// parts lists what the reply says, text first.
func parts(req *Request, rep Reply, idPrefix string) []part {
	var out []part
	if rep.Text != "" {
		out = append(out, part{text: rep.Text})
	}
	if rep.ToolUse != nil {
		out = append(out, part{tool: rep.ToolUse, id: newID(idPrefix, req.Call)})
	}
	return out
}

// input is the tool input as JSON; a nil map is sent as {} because clients validate it.
func (p part) input() string {
	in := p.tool.Input
	if in == nil {
		in = map[string]any{}
	}
	return string(marshal(in))
}

// anthropicUsage carries the cache counts under the names Claude Code adds up for its cost
// and context display.
func anthropicUsage(u *Usage, output int) map[string]any {
	return map[string]any{
		"input_tokens":                u.Input,
		"output_tokens":               output,
		"cache_read_input_tokens":     u.CacheRead,
		"cache_creation_input_tokens": u.CacheWrite,
	}
}

func anthropicBlock(p part) map[string]any {
	if p.tool == nil {
		return map[string]any{"type": "text", "text": p.text}
	}
	return map[string]any{"type": "tool_use", "id": p.id, "name": p.tool.Name,
		"input": json.RawMessage(p.input())}
}

func stopReason(rep Reply) string {
	if rep.ToolUse != nil {
		return "tool_use"
	}
	return "end_turn"
}

// answerAnthropic sends a Messages API answer, streamed when the request asked for it.
func (s *Server) answerAnthropic(w http.ResponseWriter, r *http.Request, req *Request, rep Reply) {
	ps := parts(req, rep, "toolu_")
	msg := map[string]any{
		"id": newID("msg_", req.Call), "type": "message", "role": "assistant", "model": rep.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
	}
	if !req.Stream {
		content := make([]any, len(ps))
		for i, p := range ps {
			content[i] = anthropicBlock(p)
		}
		msg["content"], msg["stop_reason"] = content, stopReason(rep)
		msg["usage"] = anthropicUsage(rep.Usage, rep.Usage.Output)
		writeJSON(w, req.Call, http.StatusOK, msg, rep.Headers)
		return
	}
	st := s.openStream(w, r, req, rep, false)
	// The real API reports the input side up front and the final output count at the
	// end; Claude Code takes the output count from message_delta.
	msg["usage"] = anthropicUsage(rep.Usage, 1)
	st.send("message_start", map[string]any{"message": msg})
	st.send("ping", map[string]any{})
	if rep.StallAfterStart {
		st.hold()
		return
	}
	for i, p := range ps {
		streamAnthropicBlock(st, i, p)
	}
	st.send("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": stopReason(rep), "stop_sequence": nil},
		"usage": anthropicUsage(rep.Usage, rep.Usage.Output),
	})
	st.send("message_stop", map[string]any{})
}

// streamAnthropicBlock sends one content block: start, deltas, stop.
func streamAnthropicBlock(st *stream, index int, p part) {
	start := map[string]any{"type": "text", "text": ""}
	body, deltaType, field, size := p.text, "text_delta", "text", textChunk
	if p.tool != nil {
		start = map[string]any{"type": "tool_use", "id": p.id, "name": p.tool.Name, "input": map[string]any{}}
		body, deltaType, field, size = p.input(), "input_json_delta", "partial_json", jsonChunk
	}
	st.send("content_block_start", map[string]any{"index": index, "content_block": start})
	st.chunks(body, size, func(piece string) bool {
		return st.send("content_block_delta", map[string]any{
			"index": index, "delta": map[string]any{"type": deltaType, field: piece}})
	})
	st.send("content_block_stop", map[string]any{"index": index})
}
