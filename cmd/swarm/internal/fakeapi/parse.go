package fakeapi

import (
	"encoding/json"
	"strings"
)

// block is a content block of either API, with only the fields the fake reads.
type block struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"` // Anthropic tool_result: a string or blocks
}

// blocks decodes content that may be a plain string or a list of blocks.
func blocks(raw json.RawMessage) []block {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	_ = json.Unmarshal(raw, &bs)
	return bs
}

// text joins the text of content that may be a string or a list of blocks.
func text(raw json.RawMessage) string {
	var parts []string
	for _, b := range blocks(raw) {
		switch {
		case b.Type == "tool_result":
			parts = append(parts, text(b.Content))
		case b.Text != "":
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// parseAnthropic fills req from a Messages API body.
func parseAnthropic(req *Request) error {
	var body struct {
		Model    string            `json:"model"`
		Stream   bool              `json:"stream"`
		System   json.RawMessage   `json:"system"`
		Tools    []json.RawMessage `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return err
	}
	req.Model, req.Stream, req.HasTools = body.Model, body.Stream, len(body.Tools) > 0
	req.System = text(body.System)
	for i := len(body.Messages) - 1; i >= 0; i-- {
		if body.Messages[i].Role != "user" {
			continue
		}
		for _, b := range blocks(body.Messages[i].Content) {
			switch b.Type {
			case "text":
				req.LastBlock = b.Text
			case "tool_result":
				req.LastBlock = text(b.Content)
				req.LastIsToolResult = true
			}
		}
		break
	}
	return nil
}

// item is a Responses API input item, with only the fields the fake reads.
type item struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Output  json.RawMessage `json:"output"` // function_call_output: a string or blocks
}

// parseResponses fills req from a Responses API body.
func parseResponses(req *Request) error {
	var body struct {
		Model        string            `json:"model"`
		Stream       bool              `json:"stream"`
		Instructions string            `json:"instructions"`
		Tools        []json.RawMessage `json:"tools"`
		Input        json.RawMessage   `json:"input"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		return err
	}
	req.Model, req.Stream, req.HasTools = body.Model, body.Stream, len(body.Tools) > 0
	// input is a plain prompt or a list of items.
	var items []item
	var prompt string
	if json.Unmarshal(body.Input, &prompt) == nil {
		items = []item{{Type: "message", Role: "user", Content: body.Input}}
	} else if len(body.Input) > 0 {
		if err := json.Unmarshal(body.Input, &items); err != nil {
			return err
		}
	}
	// Codex sends its system prompt as developer messages rather than as instructions.
	system := []string{body.Instructions}
	for _, it := range items {
		if it.Role == "developer" || it.Role == "system" {
			system = append(system, text(it.Content))
		}
	}
	req.System = strings.TrimSpace(strings.Join(system, "\n"))
	lastUserInput(req, items)
	return nil
}

// lastUserInput finds the newest user-side item: the last user message or the last tool
// output. Assistant items and reasoning after it do not count.
func lastUserInput(req *Request, items []item) {
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		switch {
		case strings.HasSuffix(it.Type, "_call_output"):
			req.LastBlock, req.LastIsToolResult = text(it.Output), true
		case (it.Type == "" || it.Type == "message") && it.Role == "user":
			for _, b := range blocks(it.Content) {
				if b.Type == "input_text" || b.Type == "text" {
					req.LastBlock = b.Text
				}
			}
		default:
			continue
		}
		return
	}
}
