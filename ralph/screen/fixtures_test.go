package screen

import (
	"os"
	"path/filepath"
	"testing"
)

// The captured screens are kept per release, a folder per agent and version
// (testdata/screens/claude-2.1.197, ...): users run old releases too. Every detector runs on
// every fixture of every release; a fixture not listed for a detector must give nothing.

const (
	serverSide = " This is a server-side issue, usually temporary — try again in a moment. If it persists, check your"
	gateway529 = serverSide + " inference gateway"
	limit197   = "You've hit your session limit · resets 9:41pm (UTC)"
)

// apiErrorWant is what APIError reads on the fixtures that end in an API error.
var apiErrorWant = map[string]string{
	"claude-2.1.197/23_err529_final_maxretries1.txt":              "API Error: 529 fakeapi simulated overloaded_error." + gateway529 + " (127.0.0.1:34983).",
	"claude-2.1.197/23_err529_final_maxretries1_macos-bullet.txt": "API Error: 529 fakeapi simulated overloaded_error." + gateway529 + " (127.0.0.1:34983).",
	"claude-2.1.197/23_err529_elbow-line_edited.txt":              `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
	"claude-2.1.197/23_err429_final_maxretries1.txt":              "API Error: Request rejected (429) · fakeapi simulated rate_limit_error",
	"claude-2.1.197/23_err500_final_maxretries1.txt":              "API Error: 500 fakeapi simulated api_error." + gateway529 + " (127.0.0.1:34983).",
	"claude-2.1.197/23_err401_final_maxretries1.txt":              "Please run /login · API Error: 401 fakeapi simulated authentication_error",
	// Esc put the next, hung, prompt back into the box: on screen the error is still the
	// agent's last word.
	"claude-2.1.197/25_hang_after_esc.txt": "API Error: 500 fakeapi simulated api_error." + gateway529 + " (127.0.0.1:34983).",
	"codex-0.171.0/56_429.txt":             "exceeded retry limit, last status: 429 Too Many Requests",
	"qwen-0.24.4/23_err500_final.txt":      "API Error: 500 fake API: simulated server_error",
	"copilot-1.0.102/07_err400_final.txt":  "400 fake API: simulated invalid_request_error",
	"gemini-0.61.0/12_err400_final.txt":    `API Error: {"error":{"code":400,"message":"fake API: simulated invalid_request_error","status":"INVALID_ARGUMENT"}}`,
	"codex-0.169.0/56_codex_429.txt":       "exceeded retry limit, last status: 429 Too Many Requests",
	// The message wraps; the first line is what the loop reports.
	"copilot-1.0.102/09_err500_final.txt":             "Failed to get response from the AI model; retried 5 times (total retry wait time: 14.72 seconds) Last error: 500 fa",
	"copilot-1.0.102/14_429_final.txt":                "Failed to get response from the AI model; retried 5 times (total retry wait time: 55.21 seconds) Last error: 429 fa",
	"claude-2.1.332/23_err529_final.txt":              "API Error: 529 fakeapi simulated overloaded_error." + serverSide,
	"claude-2.1.332/23_err529_final_macos-bullet.txt": "API Error: 529 fakeapi simulated overloaded_error." + serverSide,
	"claude-2.1.332/23_err429_final.txt":              "API Error: Request rejected (429) · fakeapi simulated rate_limit_error",
}

// limitWant is what UsageLimit reads on the fixtures that show a spent usage limit.
var limitWant = map[string]string{
	// 2.1.197 signed in with a subscription token, after a 429 with the headers of a spent
	// five-hour limit: the menu it then offers, and the screen after Esc.
	"claude-2.1.197/70_claude_usage_limit_menu.txt":      limit197,
	"claude-2.1.197/71_claude_usage_limit_after_esc.txt": limit197,
	// 2.1.332 says it in its footer and waits by itself.
	"claude-2.1.332/70_usage_limit_footer.txt": "Usage limit reached · limit resets 1:03pm",
}

// contextWant is what ContextUsed reads on the fixtures whose status line shows how full the
// context is; the others show nothing of it.
var contextWant = map[string]int{}

func fixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(screensDir, "*", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no fixtures found")
	}
	var names []string
	for _, f := range files {
		rel, _ := filepath.Rel(screensDir, f)
		names = append(names, filepath.ToSlash(rel))
	}
	return names
}

func TestDetectorsOnEveryRelease(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			text := readScreen(t, name)
			state, ok := captureWant[name]
			if !ok {
				t.Fatal("fixture has no expected classification in captureWant")
			}
			if got := Classify(text, nil); got != state {
				t.Errorf("Classify = %+v (%s), want %+v (%s)", got, got.Kind, state, state.Kind)
			}
			lines := Lines(text)
			if got, ok := APIError(lines); got != apiErrorWant[name] || ok != (apiErrorWant[name] != "") {
				t.Errorf("APIError = %q %v, want %q", got, ok, apiErrorWant[name])
			}
			if got, ok := UsageLimit(lines); got != limitWant[name] || ok != (limitWant[name] != "") {
				t.Errorf("UsageLimit = %q %v, want %q", got, ok, limitWant[name])
			}
			want, shown := contextWant[name]
			if got, ok := ContextUsed(lines); got != want || ok != shown {
				t.Errorf("ContextUsed = %d %v, want %d %v", got, ok, want, shown)
			}
		})
	}
}

// Every expectation names a fixture that exists, so a renamed capture cannot drop its checks.
func TestFixtureExpectationsExist(t *testing.T) {
	for _, m := range []map[string]string{apiErrorWant, limitWant} {
		for name := range m {
			if _, err := os.Stat(filepath.Join(screensDir, name)); err != nil {
				t.Errorf("expected fixture %s: %v", name, err)
			}
		}
	}
	for name := range captureWant {
		if _, err := os.Stat(filepath.Join(screensDir, name)); err != nil {
			t.Errorf("expected fixture %s: %v", name, err)
		}
	}
}
