// Package fakeapi is an in-process fake model API for end-to-end tests that run the real
// Claude Code CLI and opencode (Anthropic Messages API), the real Codex CLI (OpenAI Responses
// API), the real Gemini CLI (Gemini generateContent) and the OpenAI-compatible agents such as
// Qwen Code (OpenAI Chat Completions).
//
// The agents are real because swarm reads what they draw and the signals they send, and
// only the real programs show what users will see. Their model is fake because a real one
// is slow, costs money, answers differently each time and cannot be told to fail: here a
// test says which request gets which answer, and can make one stream slowly, hang, stall
// after its first event or fail with the API's own error (429 with retry-after, 529,
// 500, 401), which is how the suite shows swarm's handling of hangs, API errors and usage
// limits on the agents themselves.
//
// A test starts a Server with rules that say how to answer, points the CLI at URL(), and
// afterwards inspects the request log:
//
//	srv := fakeapi.Start(t,
//		fakeapi.Rule{When: fakeapi.Match{ToolResult: true}, Reply: fakeapi.Reply{Text: "Done."}},
//		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "make the file"}, Times: 1,
//			Reply: fakeapi.Reply{ToolUse: &fakeapi.ToolUse{Name: "Bash",
//				Input: map[string]any{"command": "touch DONE"}}}},
//	)
//	// Claude Code: ANTHROPIC_BASE_URL=srv.URL()   Codex: base_url = srv.URL() + "/v1"
//	// Gemini CLI: GOOGLE_GEMINI_BASE_URL=srv.URL()   Qwen Code: OPENAI_BASE_URL=srv.URL() + "/v1"
//	req, ok := srv.WaitFor(10*time.Second, func(r fakeapi.Request) bool { return r.LastIsToolResult })
//
// Endpoints: POST /v1/messages (SSE or JSON), POST /v1/messages/count_tokens,
// POST /v1/responses (SSE or JSON), POST /v1/chat/completions (SSE or JSON; also as
// /chat/completions, for a base URL given without /v1), GET /v1/models (and /models),
// POST /v1beta/models/MODEL:generateContent (JSON), :streamGenerateContent (SSE) and
// :countTokens. Everything else, including Claude Code's HEAD / probe, gets a JSON 404.
// Query strings are ignored. Every request is logged.
//
// It listens on 127.0.0.1 only and never forwards a request: nothing an agent sends it reaches
// a real API. It imports no other package of the module and sits under cmd/swarm/internal, as
// the end-to-end suite (cmd/swarm's e2e_*_test.go, SWARM_E2E=1) is its only user.
package fakeapi
