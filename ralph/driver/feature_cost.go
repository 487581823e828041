package driver

import (
	"path/filepath"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/cost"
	"github.com/swarm-dev/swarm/state"
)

// What an iteration cost, read from what the agent records itself (Claude Code's session
// transcript), priced from the table, and added to the loop's totals once; a loop with a
// budget (--max-cost) is ended once it is spent.

// costServices are what counting the cost asks of the driver: the one slice of its services
// (services.go) it uses.
type costServices interface {
	dir() ralph.Dir
	clock() Clock
	say(format string, args ...any)
	update(fn func(*ralph.State) error)
	updateSupervision(fn func(*ralph.SupervisionState))
	endIteration(st *ralph.State, a agent, kind ralph.Ending)
	worker() (*state.Worker, error)
	agentGetenv(name string) func(string) string
}

// costs is the feature that counts what a loop costs and holds it to its budget.
type costs struct {
	drv costServices
	// poll is how often a loop with a budget reads what it has cost.
	poll time.Duration
	// warnedModels are the models without a price already reported.
	warnedModels map[string]bool
	// next is when the watch next reads what a loop with a budget has cost.
	next time.Time
}

func (c *costs) featureName() string { return "cost" }

// watchStarted times the first look at what the working agent has cost.
func (c *costs) watchStarted(st *ralph.State, now time.Time) { c.next = now.Add(c.poll) }

// lookDue is when a loop with a budget next reads what it has cost.
func (c *costs) lookDue(st *ralph.State) (time.Time, bool) { return c.next, st.MaxCost > 0 }

// agentLook ends the iteration of a loop whose budget is spent, the running iteration counted.
func (c *costs) agentLook(st *ralph.State, a agent, w *screenWatch) bool {
	now := w.facts.Now
	if st.MaxCost <= 0 || now.Before(c.next) {
		return false
	}
	c.next = now.Add(c.poll)
	if ralph.OverBudget(c.spentNow(st), limits(st)) {
		c.drv.endIteration(st, a, ralph.EndBudget)
		return true
	}
	return false
}

// iterationEnded fills in the ended iteration's tokens and cost and what the loop has cost.
func (c *costs) iterationEnded(e *iterationEnd) { e.spent = c.costOf(e.st, e.rec) }

// usage reads the iteration's token use; ok is false when the agent's records were not found.
func (c *costs) usage(st *ralph.State, until time.Time) (cost.ByModel, bool) {
	w, err := c.drv.worker()
	if err != nil || len(w.Cmd) == 0 {
		return nil, false
	}
	getenv := c.drv.agentGetenv(w.Name)
	// A little slack either side: the records' clock is the agent's.
	win := cost.Window{From: ralph.ParseTime(st.LastIterationStarted).Add(-2 * time.Second), To: until.Add(2 * time.Second)}
	switch filepath.Base(w.Cmd[0]) {
	case "claude":
		dir := cost.ClaudeProjectDir(cost.ClaudeConfigDir(getenv), w.Cwd)
		return cost.ClaudeIteration(dir, st.AgentSession, win)
	case "codex":
		return cost.CodexIteration(cost.CodexHome(getenv), w.Cwd, win)
	}
	return nil, false
}

// price turns token use into the record's figures: nil tokens when unknown, nil cost when a
// model has no price (said once per model).
func (c *costs) price(st *ralph.State, use cost.ByModel, known bool) (*cost.Usage, *float64) {
	if !known {
		return nil, nil
	}
	total := use.Total()
	prices := cost.DefaultPrices.With(st.Pricing)
	usd, unknown, ok := use.Price(prices)
	for _, m := range unknown {
		c.sayOnce(m, "no price for model %s: its tokens are recorded, its cost is not (set [pricing.%q] in swarm.toml)", m, m)
	}
	for m := range use {
		if k, found := prices.Match(m); found && cost.IsFamily(k) {
			c.sayOnce(m, "no price for model %s: priced as %s (set [pricing.%q] in swarm.toml for its own)", m, k, m)
		}
	}
	if !ok {
		return &total, nil
	}
	return &total, &usd
}

// sayOnce logs a note about a model's price once per monitor.
func (c *costs) sayOnce(model, format string, args ...any) {
	if c.warnedModels[model] {
		return
	}
	if c.warnedModels == nil {
		c.warnedModels = map[string]bool{}
	}
	c.warnedModels[model] = true
	c.drv.say(format, args...)
}

// countCost adds an iteration's figures to the loop's totals, once per iteration however
// often it is evaluated (a monitor taking over), and returns what the loop has cost so far.
func (c *costs) countCost(n int, tokens *cost.Usage, usd *float64) float64 {
	spent := 0.0
	c.drv.update(func(s *ralph.State) error {
		if tokens != nil && s.CostCountedFor < n {
			s.CostCountedFor = n
			s.Tokens.Add(*tokens)
			if usd != nil {
				s.CostUSD += *usd
				s.CostIterations++
			}
		}
		spent = s.CostUSD
		return nil
	})
	c.drv.updateSupervision(func(rs *ralph.SupervisionState) { rs.TotalCostUSD = spent })
	return spent
}

// spentNow is what the loop has cost, the running iteration included so far.
func (c *costs) spentNow(st *ralph.State) float64 {
	use, known := c.usage(st, c.drv.clock().Now())
	_, usd := c.price(st, use, known)
	spent := st.CostUSD
	if cur, err := c.drv.dir().Load(); err == nil {
		spent = cur.CostUSD
	}
	if usd != nil {
		spent += *usd
	}
	return spent
}

// costOf fills in an ended iteration's tokens and cost and returns what the loop has cost.
func (c *costs) costOf(st *ralph.State, rec *ralph.IterationRecord) float64 {
	use, known := c.usage(st, c.drv.clock().Now())
	rec.Tokens, rec.Cost = c.price(st, use, known)
	return c.countCost(rec.Iteration, rec.Tokens, rec.Cost)
}
