package driver

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/cost"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
)

// Usage limits, the driver's side: seeing one on screen, waiting for the reset, and telling the
// other loops on the same account (one limit file per account under $SWARM_DIR/limits).

// limitServices are what the usage limits ask of the driver: the one slice of its services
// (services.go) it uses.
type limitServices interface {
	name() string
	workers() *state.Dir
	clock() Clock
	endIteration(st *ralph.State, a agent, kind ralph.Ending)
	worker() (*state.Worker, error)
	agentGetenv(name string) func(string) string
}

// usageLimits is the feature that ends an iteration at the agent's usage limit and keeps a
// loop from starting an agent while its account's limit is spent.
type usageLimits struct {
	drv limitServices
	// limit is the usage limit that ended the iteration, for its record.
	limit *ralph.LimitFacts
	// watched is the account of the agent being watched (looked up once, not at every poll).
	watched string
}

func (ul *usageLimits) featureName() string { return "limit" }

// beforeStart keeps the agent from starting when another loop on the same account hit its
// limit: starting an agent is futile.
func (ul *usageLimits) beforeStart(st *ralph.State) (ralph.Decision, bool) {
	if f, ok := ul.accountLimited(st); ok {
		return ralph.LimitHit(st.CurrentIteration, f, limits(st)), true
	}
	return ralph.Decision{}, false
}

func (ul *usageLimits) watchStarted(st *ralph.State, now time.Time) { ul.watched = ul.account() }

// statusLook ends the iteration when another loop on the account hit its limit.
func (ul *usageLimits) statusLook(st *ralph.State, a agent, w *screenWatch) bool {
	f, ok := ul.limitOf(st, ul.watched)
	if !ok {
		return false
	}
	ul.limit = &f
	ul.drv.endIteration(st, a, ralph.EndUsageLimit)
	return true
}

// screenLook ends the iteration whose agent says on screen that its usage limit is spent.
func (ul *usageLimits) screenLook(st *ralph.State, a agent, lines []string) bool {
	return ul.atUsageLimit(st, a, lines)
}

// iterationEnded names the limit that ended the iteration in its record and its facts.
func (ul *usageLimits) iterationEnded(e *iterationEnd) {
	if e.kind == ralph.EndUsageLimit && ul.limit != nil {
		e.rec.Error = ul.limit.Text
		e.limit = ul.limit
	}
}

// atUsageLimit ends an iteration whose agent says its usage limit is spent.
func (ul *usageLimits) atUsageLimit(st *ralph.State, a agent, lines []string) bool {
	text, ok := screen.UsageLimit(lines)
	if !ok {
		return false
	}
	ul.limitEnds(st, a, text)
	return true
}

// limitEnds ends the iteration at the usage limit text names (on screen, or in the agent's
// own signal), its reset read in the agent's time zone, and tells the account's other loops.
func (ul *usageLimits) limitEnds(st *ralph.State, a agent, text string) {
	now := ul.drv.clock().Now()
	reset, _ := screen.LimitReset(text, now.In(ul.agentLocation()))
	ul.limit = &ralph.LimitFacts{Text: text, Reset: reset, Now: now}
	ul.shareLimit(st, *ul.limit)
	ul.drv.endIteration(st, a, ralph.EndUsageLimit)
}

// agentLocation is the agent's time zone (its TZ), in which it shows a reset time that names
// no zone; the monitor's own when the agent's is not set or not known.
func (ul *usageLimits) agentLocation() *time.Location {
	tz := ul.drv.agentGetenv(ul.drv.name())("TZ")
	if tz == "" {
		return time.Local
	}
	loc, err := time.LoadLocation(strings.TrimPrefix(tz, ":"))
	if err != nil {
		return time.Local
	}
	return loc
}

// accountLimit is the file in which a usage limit is shared by the loops of one account.
type accountLimit struct {
	Account string `json:"account"`
	Until   string `json:"until"`
	Text    string `json:"text"`
	Worker  string `json:"worker"`
}

// account is the agent's account, as its configuration directory: Claude Code's
// CLAUDE_CONFIG_DIR or ~/.claude, Codex's CODEX_HOME or ~/.codex. "" for other agents.
func (ul *usageLimits) account() string {
	w, err := ul.drv.worker()
	if err != nil || len(w.Cmd) == 0 {
		return ""
	}
	getenv := ul.drv.agentGetenv(w.Name)
	switch filepath.Base(w.Cmd[0]) {
	case "claude":
		return cost.ClaudeConfigDir(getenv)
	case "codex":
		return cost.CodexHome(getenv)
	}
	return ""
}

func (ul *usageLimits) limitPath(account string) string {
	sum := sha256.Sum256([]byte(account))
	return filepath.Join(limitsDir(ul.drv.workers().Root), hex.EncodeToString(sum[:8])+".json")
}

// limitsDir holds the usage limits loops on one account share, under the state directory root.
func limitsDir(root string) string { return filepath.Join(root, "limits") }

// shareLimit tells the other loops on this account that its limit is spent.
func (ul *usageLimits) shareLimit(st *ralph.State, f ralph.LimitFacts) {
	account := ul.account()
	if account == "" {
		return
	}
	until := ralph.LimitHit(st.CurrentIteration, f, limits(st)).WaitUntil
	path := ul.limitPath(account)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
		_ = state.WriteJSON(path, accountLimit{Account: account, Until: until.Format(ralph.TimeFormat), Text: f.Text, Worker: ul.drv.name()})
	}
}

// accountLimited reports a limit another loop on the same account hit and that has not
// reset yet.
func (ul *usageLimits) accountLimited(st *ralph.State) (ralph.LimitFacts, bool) {
	return ul.limitOf(st, ul.account())
}

// limitOf is accountLimited for an account already known (a watch looks it up once, not at
// every poll).
func (ul *usageLimits) limitOf(st *ralph.State, account string) (ralph.LimitFacts, bool) {
	if account == "" {
		return ralph.LimitFacts{}, false
	}
	var al accountLimit
	if state.ReadJSON(ul.limitPath(account), &al) != nil || al.Account != account || al.Worker == ul.drv.name() {
		return ralph.LimitFacts{}, false
	}
	until, now := ralph.ParseTime(al.Until), ul.drv.clock().Now()
	if !until.After(now) {
		return ralph.LimitFacts{}, false
	}
	return ralph.LimitFacts{Text: al.Text, Reset: until.Add(-limits(st).EffectiveLimitMargin()), Now: now, By: al.Worker}, true
}
