package screen

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAPIErrorOnRealScreens(t *testing.T) {
	cases := map[string]string{
		"23_err529_final_maxretries1.txt": "API Error: 529 fakeapi simulated overloaded_error. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:34983).",
		"23_err429_final_maxretries1.txt": "API Error: Request rejected (429) · fakeapi simulated rate_limit_error",
		"23_err500_final_maxretries1.txt": "API Error: 500 fakeapi simulated api_error. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:34983).",
		"23_err401_final_maxretries1.txt": "Please run /login · API Error: 401 fakeapi simulated authentication_error",
		"22_err401.txt":                   "",
		"56_codex_429.txt":                "exceeded retry limit, last status: 429 Too Many Requests",
		// Still retrying, working, idle after a good answer: no error (yet).
		"20_err429_t6.txt":          "",
		"12_working_t10.txt":        "",
		"10_idle_seeded_bypass.txt": "",
		"55_codex_idle_after.txt":   "",
	}
	for name, want := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", "screens", name))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := APIError(Lines(string(data)))
		if got != want || ok != (want != "") {
			t.Errorf("%s: %q %v, want %q", name, got, ok, want)
		}
	}
}

func TestAPIErrorOnlyInTheAgentsOwnLastMessage(t *testing.T) {
	cases := map[string]bool{
		// The prompt's echo and a tool's output mention it; the agent's answer is fine.
		"❯ handle API Error: 529 responses\n● I will look at it.\n❯ ":                     false,
		"● Bash(cat log)\n  ⎿  API Error: 500 upstream\n● The log shows one failure.\n❯ ": false,
		// Quoted inside a message, not opening it.
		"● I fixed the handler for API Error: 500 responses.\n❯ ": false,
		// An error that was followed by a good answer is over.
		"● API Error: 529 overloaded\n❯ try again\n● Done.\n❯ ":         false,
		"● API Error: 529 overloaded\n✻ Baked for 0s\n────\n❯ \n────\n": true,
	}
	for screen, want := range cases {
		if _, got := APIError(Lines(screen)); got != want {
			t.Errorf("%q: %v, want %v", screen, got, want)
		}
	}
}
