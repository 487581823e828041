package ralph

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/cost"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
)

// Usage limits, the driver's side: seeing one on screen, waiting for the reset, and telling the
// other loops on the same account (one limit file per account under $SWARM_DIR/limits).

// atUsageLimit ends an iteration whose agent says its usage limit is spent.
func (l *Loop) atUsageLimit(st *State, a agent, lines []string) bool {
	text, ok := screen.UsageLimit(lines)
	if !ok {
		return false
	}
	l.limitEnds(st, a, text)
	return true
}

// limitEnds ends the iteration at the usage limit text names (on screen, or in the agent's
// own signal), its reset read in the agent's time zone, and tells the account's other loops.
func (l *Loop) limitEnds(st *State, a agent, text string) {
	now := l.cfg.Clock.Now()
	reset, _ := screen.LimitReset(text, now.In(l.agentLocation()))
	l.limit = &LimitFacts{Text: text, Reset: reset, Now: now}
	l.shareLimit(st, *l.limit)
	l.end(st, a, EndUsageLimit)
}

// agentLocation is the agent's time zone (its TZ), in which it shows a reset time that names
// no zone; the monitor's own when the agent's is not set or not known.
func (l *Loop) agentLocation() *time.Location {
	tz := l.agentGetenv(l.cfg.Name)("TZ")
	if tz == "" {
		return time.Local
	}
	loc, err := time.LoadLocation(strings.TrimPrefix(tz, ":"))
	if err != nil {
		return time.Local
	}
	return loc
}

// waitForReset waits until the limit's reset (the loop is "waiting"); a resume, pause or
// stop meanwhile ends the wait at once.
func (l *Loop) waitForReset(st *State) {
	until := ParseTime(st.WaitingUntil)
	for l.cfg.Clock.Now().Before(until) {
		if l.abortRequested() {
			l.abortNow(agent{dead: true})
			return
		}
		if l.statusNow() != StatusWaiting {
			return
		}
		// The status is read every second, or at the status poll when that is slower.
		l.wait(min(until.Sub(l.cfg.Clock.Now()), max(time.Second, l.statusPoll())), nil, nil)
	}
	_, _, err := l.cfg.Dir.Transition(l.cfg.Clock.Now(), func(cur *State) (Decision, error) {
		if cur.Status != StatusWaiting {
			return Decision{}, nil
		}
		return LimitOver(), nil
	})
	l.recorded(err)
	if l.statusNow() == StatusRunning {
		l.say("usage limit reset, resuming")
	}
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
func (l *Loop) account() string {
	w, err := l.worker()
	if err != nil || len(w.Cmd) == 0 {
		return ""
	}
	getenv := l.agentGetenv(w.Name)
	switch filepath.Base(w.Cmd[0]) {
	case "claude":
		return cost.ClaudeConfigDir(getenv)
	case "codex":
		return cost.CodexHome(getenv)
	}
	return ""
}

func (l *Loop) limitPath(account string) string {
	sum := sha256.Sum256([]byte(account))
	return filepath.Join(l.limitsDir(), hex.EncodeToString(sum[:8])+".json")
}

// limitsDir holds the usage limits loops on one account share.
func (l *Loop) limitsDir() string { return filepath.Join(l.cfg.Workers.Root, "limits") }

// shareLimit tells the other loops on this account that its limit is spent.
func (l *Loop) shareLimit(st *State, f LimitFacts) {
	account := l.account()
	if account == "" {
		return
	}
	until := LimitHit(st.CurrentIteration, f, limits(st)).WaitUntil
	path := l.limitPath(account)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err == nil {
		_ = state.WriteJSON(path, accountLimit{Account: account, Until: until.Format(TimeFormat), Text: f.Text, Worker: l.cfg.Name})
	}
}

// accountLimited reports a limit another loop on the same account hit and that has not
// reset yet.
func (l *Loop) accountLimited(st *State) (LimitFacts, bool) {
	return l.limitOf(st, l.account())
}

// limitOf is accountLimited for an account already known (a watch looks it up once, not at
// every poll).
func (l *Loop) limitOf(st *State, account string) (LimitFacts, bool) {
	if account == "" {
		return LimitFacts{}, false
	}
	var al accountLimit
	if state.ReadJSON(l.limitPath(account), &al) != nil || al.Account != account || al.Worker == l.cfg.Name {
		return LimitFacts{}, false
	}
	until, now := ParseTime(al.Until), l.cfg.Clock.Now()
	if !until.After(now) {
		return LimitFacts{}, false
	}
	return LimitFacts{Text: al.Text, Reset: until.Add(-limits(st).limitMargin()), Now: now, By: al.Worker}, true
}

// agentGetenv looks up the agent's environment: the worker's saved one, then the monitor's.
func (l *Loop) agentGetenv(name string) func(string) string {
	return envFileGetenv(l.cfg.Workers.EnvPath(name))
}

// envFileGetenv reads a worker's saved environment (its env file, a JSON list of K=V) as a
// getenv: a variable it does not set is this process's.
func envFileGetenv(envFile string) func(string) string {
	env := map[string]string{}
	var list []string
	if state.ReadJSON(envFile, &list) == nil {
		for _, kv := range list {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
	}
	return func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
}
