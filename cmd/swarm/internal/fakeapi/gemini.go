package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The Gemini API, as Gemini CLI calls it with GOOGLE_GEMINI_BASE_URL:
// POST /v1beta/models/MODEL:generateContent, :streamGenerateContent?alt=sse and :countTokens.
// The model is in the path, and a streamed answer is a series of plain "data:" events, each
// a whole response holding the next piece.

// geminiMethod splits a Gemini path into its model and method ("generateContent", ...);
// ok is false for any other path.
func geminiMethod(path string) (model, method string, ok bool) {
	rest, found := strings.CutPrefix(path, "/v1beta/models/")
	if !found {
		rest, found = strings.CutPrefix(path, "/v1/models/")
	}
	if !found {
		return "", "", false
	}
	model, method, found = strings.Cut(rest, ":")
	switch {
	case !found || model == "" || strings.Contains(model, "/"):
		return "", "", false
	case method == "generateContent", method == "streamGenerateContent", method == "countTokens":
		return model, method, true
	}
	return "", "", false
}

func isGemini(path string) bool {
	_, _, ok := geminiMethod(path)
	return ok
}

// gemini answers a Gemini API request. Only streamGenerateContent streams; the model named
// in the path is the request's model.
func (s *Server) gemini(w http.ResponseWriter, r *http.Request, req *Request) {
	model, method, _ := geminiMethod(req.Path)
	req.API = Gemini
	parse := func(req *Request) error {
		req.Model, req.Stream = model, method == "streamGenerateContent"
		return parseGemini(req)
	}
	if method == "countTokens" {
		s.geminiCountTokens(w, req)
		return
	}
	s.model(w, r, req, parse, s.answerGemini)
}

// geminiPart is a part of a Gemini content, with only the fields the fake reads.
type geminiPart struct {
	Text             string          `json:"text"`
	FunctionResponse json.RawMessage `json:"functionResponse"`
}

// parseGemini fills req from a generateContent body; the model comes from the path.
func parseGemini(req *Request) error {
	var body struct {
		Contents []struct {
			Role  string       `json:"role"`
			Parts []geminiPart `json:"parts"`
		} `json:"contents"`
		SystemInstruction *struct {
			Parts []geminiPart `json:"parts"`
		} `json:"systemInstruction"`
		Tools []struct {
			FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return err
	}
	for _, t := range body.Tools {
		req.HasTools = req.HasTools || len(t.FunctionDeclarations) > 0
	}
	if si := body.SystemInstruction; si != nil {
		var sys []string
		for _, p := range si.Parts {
			sys = append(sys, p.Text)
		}
		req.System = strings.Join(sys, "\n")
	}
	for i := len(body.Contents) - 1; i >= 0; i-- {
		c := body.Contents[i]
		if c.Role != "user" {
			continue
		}
		for _, p := range c.Parts {
			switch {
			case len(p.FunctionResponse) > 0 && string(p.FunctionResponse) != "null":
				req.LastBlock, req.LastIsToolResult = string(p.FunctionResponse), true
			case p.Text != "":
				req.LastBlock = p.Text
			}
		}
		break
	}
	return nil
}

// geminiUsage is the usageMetadata of an answer; the prompt count includes the cached part.
func geminiUsage(u *Usage) map[string]any {
	return map[string]any{
		"promptTokenCount":        u.Input,
		"candidatesTokenCount":    u.Output,
		"cachedContentTokenCount": u.CacheRead,
		"totalTokenCount":         u.Input + u.Output,
	}
}

func geminiParts(ps []part) []any {
	out := make([]any, len(ps))
	for i, p := range ps {
		if p.tool == nil {
			out[i] = map[string]any{"text": p.text}
			continue
		}
		out[i] = map[string]any{"functionCall": map[string]any{"id": p.id, "name": p.tool.Name,
			"args": json.RawMessage(p.input())}}
	}
	return out
}

func geminiResponse(req *Request, rep Reply, parts []any, finish string) map[string]any {
	cand := map[string]any{"index": 0, "content": map[string]any{"role": "model", "parts": parts}}
	if finish != "" {
		cand["finishReason"] = finish
	}
	return map[string]any{"candidates": []any{cand}, "usageMetadata": geminiUsage(rep.Usage),
		"modelVersion": rep.Model, "responseId": newID("resp_", req.Call)}
}

// answerGemini sends a generateContent answer: one JSON object, or for
// streamGenerateContent one event per text chunk and one per function call.
func (s *Server) answerGemini(w http.ResponseWriter, r *http.Request, req *Request, rep Reply) {
	ps := parts(req, rep, "call_")
	if !req.Stream {
		writeJSON(w, req.Call, http.StatusOK, geminiResponse(req, rep, geminiParts(ps), "STOP"), rep.Headers)
		return
	}
	st := s.openStream(w, r, req, rep, false)
	if rep.StallAfterStart {
		st.data(geminiResponse(req, rep, []any{map[string]any{"text": ""}}, ""))
		st.hold()
		return
	}
	for i, p := range ps {
		finish := ""
		if i == len(ps)-1 {
			finish = "STOP"
		}
		if p.tool != nil {
			st.data(geminiResponse(req, rep, geminiParts([]part{p}), finish))
			continue
		}
		pieces := split(p.text, textChunk)
		st.chunks(p.text, textChunk, func(piece string) bool {
			pieces = pieces[1:]
			end := ""
			if len(pieces) == 0 {
				end = finish
			}
			return st.data(geminiResponse(req, rep, []any{map[string]any{"text": piece}}, end))
		})
	}
}

// geminiError is the Google API error body.
func geminiError(status int, msg string) map[string]any {
	return map[string]any{"error": map[string]any{"code": status, "message": msg, "status": geminiStatus(status)}}
}

func geminiStatus(status int) string {
	if s, ok := geminiStatuses[status]; ok {
		return s
	}
	return "INTERNAL"
}

var geminiStatuses = map[int]string{
	400: "INVALID_ARGUMENT",
	401: "UNAUTHENTICATED",
	403: "PERMISSION_DENIED",
	404: "NOT_FOUND",
	429: "RESOURCE_EXHAUSTED",
	500: "INTERNAL",
	503: "UNAVAILABLE",
}

// geminiCountTokens answers countTokens with about four bytes per token.
func (s *Server) geminiCountTokens(w http.ResponseWriter, req *Request) {
	s.record(req)
	writeJSON(w, 0, http.StatusOK, map[string]any{"totalTokens": max(1, len(req.Body)/4)}, nil)
}

// data writes one unnamed event, as the Gemini API streams.
func (st *stream) data(v map[string]any) bool {
	if !st.ok {
		return false
	}
	if _, err := fmt.Fprintf(st.w, "data: %s\n\n", marshal(v)); err != nil {
		st.ok = false
	} else if err := st.rc.Flush(); err != nil {
		st.ok = false
	}
	return st.ok
}
