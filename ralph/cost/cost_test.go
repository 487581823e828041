package cost

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The fixtures are real Claude Code 2.1.197 transcripts, written against a fake API that
// reports 1000 input, 50 output and 500 cache-read tokens per call: one `claude -p` call, and
// one TUI turn with a tool call (two API calls, the first written once per content block).

func TestClaudeTranscripts(t *testing.T) {
	use, err := ReadClaudeTranscript("testdata/claude-print.jsonl", Window{})
	if err != nil {
		t.Fatal(err)
	}
	want := ByModel{"claude-opus-4-8": {Input: 1000, Output: 50, CacheRead: 500}}
	if !reflect.DeepEqual(use, want) {
		t.Errorf("print mode: %+v", use)
	}
	usd, unknown, ok := use.Price(DefaultPrices)
	// What Claude Code itself reported as total_cost_usd for this call.
	if !ok || unknown != nil || math.Abs(usd-0.0065) > 1e-12 {
		t.Errorf("cost %v unknown %v", usd, unknown)
	}
	use, err = ReadClaudeTranscript("testdata/claude-tui-tool.jsonl", Window{})
	if err != nil {
		t.Fatal(err)
	}
	// Two API calls, not three lines' worth.
	if got := use["claude-opus-4-8"]; got != (Usage{Input: 2000, Output: 100, CacheRead: 1000}) {
		t.Errorf("tool turn: %+v", got)
	}
	// Only what happened inside the window counts.
	from := time.Date(2026, 11, 24, 19, 31, 0, 600_000_000, time.UTC)
	use, _ = ReadClaudeTranscript("testdata/claude-tui-tool.jsonl", Window{From: from})
	if got := use["claude-opus-4-8"]; got != (Usage{Input: 1000, Output: 50, CacheRead: 500}) {
		t.Errorf("from %v: %+v", from, got)
	}
}

func TestClaudeIterationFindsItsOwnSession(t *testing.T) {
	config := t.TempDir()
	cwd := t.TempDir()
	dir := ClaudeProjectDir(config, cwd)
	os.MkdirAll(dir, 0o700)
	data, _ := os.ReadFile("testdata/claude-print.jsonl")
	os.WriteFile(filepath.Join(dir, "aaa.jsonl"), data, 0o600)
	w := Window{From: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	if use, ok := ClaudeIteration(dir, "aaa", w); !ok || use.Total().Input != 1000 {
		t.Errorf("by id: %+v %v", use, ok)
	}
	if use, ok := ClaudeIteration(dir, "", w); !ok || use.Total().Input != 1000 {
		t.Errorf("the one session in the window: %+v %v", use, ok)
	}
	// Another session in the same directory at the same time: never counted as ours.
	os.WriteFile(filepath.Join(dir, "bbb.jsonl"), data, 0o600)
	if use, ok := ClaudeIteration(dir, "", w); ok || use != nil && len(use) > 0 && ok {
		t.Errorf("ambiguous: %+v %v", use, ok)
	}
	if use, ok := ClaudeIteration(dir, "aaa", w); !ok || use.Total().Input != 1000 {
		t.Errorf("by id beside another: %+v %v", use, ok)
	}
	if _, ok := ClaudeIteration(dir, "missing", w); ok {
		t.Error("a session that wrote nothing")
	}
}

func TestClaudeProjectDir(t *testing.T) {
	if got := ClaudeProjectDir("/c", "/tmp/rl/p1/work_dir.x"); got != "/c/projects/-tmp-rl-p1-work-dir-x" {
		t.Errorf("got %s", got)
	}
	env := map[string]string{"HOME": "/h"}
	if got := ClaudeConfigDir(func(k string) string { return env[k] }); got != "/h/.claude" {
		t.Errorf("config %s", got)
	}
	env["CLAUDE_CONFIG_DIR"] = "/cc"
	if got := ClaudeConfigDir(func(k string) string { return env[k] }); got != "/cc" {
		t.Errorf("config %s", got)
	}
}

func TestPriceLookup(t *testing.T) {
	cases := map[string]float64{
		"claude-opus-4-8":           5,
		"claude-opus-4-8[1m]":       5,
		"claude-opus-4-1-20250805":  15,
		"claude-sonnet-5":           3,
		"claude-haiku-4-5-20251001": 1,
		"gpt-5.1-codex":             1.25,
		"gpt-5.1-codex-mini":        0.25,
		"gpt-5-mini-2025-08-07":     0.25,
	}
	for model, input := range cases {
		if p, ok := DefaultPrices.Lookup(model); !ok || p.Input != input {
			t.Errorf("%s: %+v %v, want input %v", model, p, ok, input)
		}
	}
	if _, ok := DefaultPrices.Lookup("llama-3"); ok {
		t.Error("an unknown model got a price")
	}
	custom := DefaultPrices.With(Prices{"llama-3": {Input: 1}})
	use := ByModel{"llama-3": {Input: 2_000_000}, "mystery": {Input: 5}}
	usd, unknown, ok := use.Price(custom)
	if ok || usd != 2 || !reflect.DeepEqual(unknown, []string{"mystery"}) {
		t.Errorf("priced %v %v %v", usd, unknown, ok)
	}
}

// A model newer than the table is priced by its family; the user's own table comes first,
// for the model itself and for the family.
func TestPriceByFamily(t *testing.T) {
	cases := []struct {
		prices Prices
		model  string
		key    string
		input  float64
	}{
		{DefaultPrices, "claude-opus-5-5", "claude-opus-*", 5},
		{DefaultPrices, "claude-opus-5-5[1m]", "claude-opus-*", 5},
		{DefaultPrices, "claude-sonnet-5-5-20261101", "claude-sonnet-5", 3},
		{DefaultPrices, "claude-sonnet-6", "claude-sonnet-*", 3},
		{DefaultPrices, "claude-haiku-5", "claude-haiku-*", 1},
		{DefaultPrices, "gpt-5.2-codex", "gpt-5", 1.25},
		{DefaultPrices, "gpt-5o", "gpt-5*", 1.25},
		{DefaultPrices, "gpt-5.1-codex", "gpt-5.1-codex", 1.25},
		// An exact entry still beats its family.
		{DefaultPrices, "claude-opus-4-1", "claude-opus-4-1", 15},
		{DefaultPrices.With(Prices{"claude-opus-5-5": {Input: 7}}), "claude-opus-5-5", "claude-opus-5-5", 7},
		{DefaultPrices.With(Prices{"claude-opus-*": {Input: 9}}), "claude-opus-5-5", "claude-opus-*", 9},
	}
	for _, c := range cases {
		k, ok := c.prices.Match(c.model)
		p, _ := c.prices.Lookup(c.model)
		if !ok || k != c.key || p.Input != c.input {
			t.Errorf("%s: %q %v input %v, want %q input %v", c.model, k, ok, p.Input, c.key, c.input)
		}
	}
	for _, model := range []string{"claude-3-opus", "gpt-4o", "gemini-2.5-pro"} {
		if k, ok := DefaultPrices.Match(model); ok {
			t.Errorf("%s priced as %q", model, k)
		}
	}
	if !IsFamily("claude-opus-*") || IsFamily("claude-opus-4-8") {
		t.Error("IsFamily")
	}
}

// A real Codex 0.169.0 rollout (codex exec, one tool call: two responses of 1000 input, of
// which 400 cached, and 50 output tokens, with gpt-5.1-codex).
func TestCodexRollout(t *testing.T) {
	use, cwd, err := ReadCodexRollout("testdata/codex-exec-tool.jsonl", Window{})
	if err != nil || cwd != "/tmp/rl/cx2/work" {
		t.Fatalf("cwd %q, %v", cwd, err)
	}
	if got := use["gpt-5.1-codex"]; got != (Usage{Input: 1200, CacheRead: 800, Output: 100}) || len(use) != 1 {
		t.Errorf("usage %+v", use)
	}
	usd, _, ok := use.Price(DefaultPrices)
	if want := (1200*1.25 + 800*0.125 + 100*10) / 1e6; !ok || math.Abs(usd-want) > 1e-12 {
		t.Errorf("cost %v, want %v", usd, want)
	}
}

func TestCodexIterationFindsTheSessionOfItsDirectory(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	data, _ := os.ReadFile("testdata/codex-exec-tool.jsonl")
	now := time.Now()
	dir := filepath.Join(home, "sessions", now.Format("2006"), now.Format("01"), now.Format("02"))
	os.MkdirAll(dir, 0o700)
	real, _ := filepath.EvalSymlinks(cwd)
	mine := strings.ReplaceAll(string(data), "/tmp/rl/cx2/work", real)
	os.WriteFile(filepath.Join(dir, "rollout-a.jsonl"), []byte(mine), 0o600)
	// Another directory's session at the same time is not ours.
	os.WriteFile(filepath.Join(dir, "rollout-b.jsonl"), data, 0o600)
	// The fixture's times are in the past: an open window takes them in; the files are new.
	w := Window{}
	use, ok := CodexIteration(home, cwd, w)
	if !ok || use["gpt-5.1-codex"].Output != 100 {
		t.Errorf("usage %+v %v", use, ok)
	}
	// Two sessions in the same directory: not known.
	os.WriteFile(filepath.Join(dir, "rollout-c.jsonl"), []byte(mine), 0o600)
	if _, ok := CodexIteration(home, cwd, w); ok {
		t.Error("two sessions of one directory, one counted")
	}
}
