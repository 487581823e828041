package ralph

import (
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph/cost"
)

// A budget is only as good as the cost swarm can read and price: spawn warns when it cannot.
func TestBudgetBlindSpot(t *testing.T) {
	noEnv := func(string) string { return "" }
	opusEnv := func(k string) string {
		if k == "ANTHROPIC_MODEL" {
			return "llama-3-70b"
		}
		return ""
	}
	custom := cost.Prices{"my-model": {Input: 1}}
	cases := []struct {
		name    string
		maxCost float64
		argv    []string
		getenv  func(string) string
		pricing cost.Prices
		want    string // a part of the warning; "" for none
	}{
		{"no budget", 0, []string{"aider"}, noEnv, nil, ""},
		{"claude, its default model", 5, []string{"/usr/bin/claude", "--dangerously-skip-permissions"}, noEnv, nil, ""},
		{"claude, a new model of a known family", 5, []string{"claude", "--model", "claude-opus-9-9"}, noEnv, nil, ""},
		{"claude, an alias", 5, []string{"claude", "--model=sonnet"}, noEnv, nil, ""},
		{"claude, an unpriced model", 5, []string{"claude", "--model", "llama-3-70b"}, noEnv, nil, "no price for model llama-3-70b"},
		{"claude, an unpriced model in its env", 5, []string{"claude"}, opusEnv, nil, "no price for model llama-3-70b"},
		{"claude, a model the project prices", 5, []string{"claude", "--model", "my-model"}, noEnv, custom, ""},
		{"codex, its configured model", 5, []string{"codex"}, noEnv, nil, ""},
		{"codex, -m", 5, []string{"codex", "-m", "gpt-5.1-codex"}, noEnv, nil, ""},
		{"codex, -c model=", 5, []string{"codex", "-c", `model="o1-weird"`}, noEnv, nil, "no price for model o1-weird"},
		{"another agent", 5, []string{"aider", "--yes"}, noEnv, nil, "swarm reads the cost of Claude Code and Codex only; what aider spends is not known"},
	}
	for _, c := range cases {
		got := BudgetBlindSpot(c.maxCost, c.argv, c.getenv, c.pricing)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
