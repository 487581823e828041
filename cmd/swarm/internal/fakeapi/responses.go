package fakeapi

import (
	"maps"
	"net/http"
	"time"
)

// responsesUsage is the Responses API usage object. Input counts the cached tokens too;
// Codex shows input - cached + output as "tokens used".
func responsesUsage(u *Usage) map[string]any {
	return map[string]any{
		"input_tokens":          u.Input,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CacheRead},
		"output_tokens":         u.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens":          u.Input + u.Output,
	}
}

// outputItem is the finished output item for a part: an assistant message or a
// function_call whose arguments are a JSON string (Codex parses them itself).
func outputItem(req *Request, p part) map[string]any {
	if p.tool == nil {
		return map[string]any{
			"id": newID("msg_", req.Call), "type": "message", "status": "completed", "role": "assistant",
			"content": []any{outputText(p.text)},
		}
	}
	return map[string]any{
		"id": newID("fc_", req.Call), "type": "function_call", "status": "completed",
		"call_id": p.id, "name": p.tool.Name, "arguments": p.input(),
	}
}

func outputText(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
}

// with returns a copy of m with the given key/value pairs set.
func with(m map[string]any, kv ...any) map[string]any {
	c := maps.Clone(m)
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i].(string)] = kv[i+1]
	}
	return c
}

// answerResponses sends a Responses API answer, streamed when the request asked for it.
func (s *Server) answerResponses(w http.ResponseWriter, r *http.Request, req *Request, rep Reply) {
	ps := parts(req, rep, "call_")
	items := make([]map[string]any, len(ps))
	output := make([]any, len(ps))
	for i, p := range ps {
		items[i] = outputItem(req, p)
		output[i] = items[i]
	}
	resp := map[string]any{
		"id": newID("resp_", req.Call), "object": "response", "created_at": time.Now().Unix(),
		"status": "completed", "model": rep.Model, "output": output,
		"usage": responsesUsage(rep.Usage), "error": nil, "incomplete_details": nil,
	}
	if !req.Stream {
		writeJSON(w, req.Call, http.StatusOK, resp, rep.Headers)
		return
	}
	st := s.openStream(w, r, req, rep, true)
	started := with(resp, "status", "in_progress", "output", []any{}, "usage", nil)
	st.send("response.created", map[string]any{"response": started})
	st.send("response.in_progress", map[string]any{"response": started})
	if rep.StallAfterStart {
		st.hold()
		return
	}
	for i, item := range items {
		streamOutputItem(st, i, item, ps[i])
	}
	st.send("response.completed", map[string]any{"response": resp})
}

// streamOutputItem sends one output item: added, its deltas, done.
func streamOutputItem(st *stream, index int, item map[string]any, p part) {
	id := item["id"]
	at := func(kv ...any) map[string]any {
		return with(map[string]any{"item_id": id, "output_index": index}, kv...)
	}
	if p.tool != nil {
		args := p.input()
		st.send("response.output_item.added", map[string]any{"output_index": index,
			"item": with(item, "status", "in_progress", "arguments", "")})
		st.chunks(args, jsonChunk, func(piece string) bool {
			return st.send("response.function_call_arguments.delta", at("delta", piece))
		})
		st.send("response.function_call_arguments.done", at("arguments", args))
	} else {
		text := p.text
		st.send("response.output_item.added", map[string]any{"output_index": index,
			"item": with(item, "status", "in_progress", "content", []any{})})
		st.send("response.content_part.added", at("content_index", 0, "part", outputText("")))
		st.chunks(text, textChunk, func(piece string) bool {
			return st.send("response.output_text.delta", at("content_index", 0, "delta", piece))
		})
		st.send("response.output_text.done", at("content_index", 0, "text", text))
		st.send("response.content_part.done", at("content_index", 0, "part", outputText(text)))
	}
	st.send("response.output_item.done", map[string]any{"output_index": index, "item": item})
}
