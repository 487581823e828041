package ralph

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/swarm-dev/swarm/ralph/cost"
)

// The budget (--max-cost): a loop that has cost more than it may is stopped, and reported
// like a loop that gave up, since someone has to decide whether to spend more.

// OverBudget reports whether spent passes the loop's budget.
func OverBudget(spent float64, lim Limits) bool {
	return lim.MaxCost > 0 && spent > lim.MaxCost
}

// withBudget stops a loop over its budget once an iteration ended, unless the iteration
// already ended the loop another way.
func withBudget(d Decision, f RunFacts, lim Limits) Decision {
	if !OverBudget(f.Spent, lim) || d.Ended {
		return d
	}
	msg := fmt.Sprintf("cost $%.4f passed the budget of $%.2f, stopping loop", f.Spent, lim.MaxCost)
	d.Backoff = 0
	d.Say("%s", msg)
	d.event("BUDGET", "iteration %d %s", f.Iteration, msg)
	d.Stop(StatusStopped, "budget_exceeded", "")
	d.Escalate = fmt.Sprintf("budget exceeded: $%.4f of $%.2f", f.Spent, lim.MaxCost)
	return d
}

// BudgetBlindSpot says why a budget cannot stop a loop of argv: swarm reads only Claude
// Code's and Codex's own records of token use, and prices only models its table (with the
// project's [pricing] overrides on top) knows. "" when the budget works, or when there is
// none. getenv is the agent's environment, for the model it is told to use there.
func BudgetBlindSpot(maxCost float64, argv []string, getenv func(string) string, pricing cost.Prices) string {
	if maxCost <= 0 || len(argv) == 0 {
		return ""
	}
	agent := filepath.Base(argv[0])
	model := ""
	switch agent {
	case "claude":
		model = claudeModel(argv[1:], getenv("ANTHROPIC_MODEL"))
	case "codex":
		model = codexModel(argv[1:])
	default:
		return fmt.Sprintf("--max-cost: swarm reads the cost of Claude Code and Codex only; what %s spends is not known, so the budget will not stop this loop", agent)
	}
	if model == "" {
		return ""
	}
	if _, ok := cost.DefaultPrices.With(pricing).Lookup(model); !ok {
		return fmt.Sprintf("--max-cost: no price for model %s: its cost is not known, so the budget will not stop this loop (set [pricing.%q] in swarm.toml)", model, model)
	}
	return ""
}

// claudeAliases are the model names Claude Code takes for its families.
var claudeAliases = map[string]string{"opus": "claude-opus-*", "sonnet": "claude-sonnet-*", "haiku": "claude-haiku-*",
	"opusplan": "claude-opus-*", "default": "", "best": "claude-opus-*"}

// claudeModel is the model Claude Code is told to use (--model, else ANTHROPIC_MODEL), as
// the price table names it; "" for its default.
func claudeModel(args []string, envModel string) string {
	m := flagValue(args, "--model")
	if m == "" {
		m = envModel
	}
	base, _, _ := strings.Cut(strings.ToLower(m), "[")
	if family, ok := claudeAliases[base]; ok {
		return family
	}
	return m
}

// codexModel is the model Codex is told to use (--model, -m or -c model=...); "" for the one
// in its configuration.
func codexModel(args []string) string {
	if m := flagValue(args, "--model", "-m"); m != "" {
		return m
	}
	for i, a := range args {
		v, ok := strings.CutPrefix(a, "--config=")
		if !ok && (a == "-c" || a == "--config") && i+1 < len(args) {
			v, ok = args[i+1], true
		}
		if k, val, found := strings.Cut(v, "="); ok && found && strings.TrimSpace(k) == "model" {
			return strings.Trim(strings.TrimSpace(val), `"'`)
		}
	}
	return ""
}

// flagValue is the value of the first of names in args ("--model X" or "--model=X").
func flagValue(args []string, names ...string) string {
	for i, a := range args {
		for _, n := range names {
			if a == n && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, n+"="); ok {
				return v
			}
		}
	}
	return ""
}
