package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
)

// unifiedLimits are the headers with which the API tells a subscription's use of its 5-hour
// and 7-day limits (fractions used, resets in seconds since the epoch).
func unifiedLimits(fiveHour float64, reset time.Time, sevenDay float64) map[string]string {
	return map[string]string{
		"anthropic-ratelimit-unified-status":         "allowed",
		"anthropic-ratelimit-unified-5h-utilization": fmt.Sprint(fiveHour),
		"anthropic-ratelimit-unified-5h-reset":       fmt.Sprint(reset.Unix()),
		"anthropic-ratelimit-unified-7d-utilization": fmt.Sprint(sevenDay),
		"anthropic-ratelimit-unified-7d-reset":       fmt.Sprint(reset.Add(72 * time.Hour).Unix()),
	}
}

// Claude Code signed in with a subscription is told by the API that 95% of its 5-hour limit
// is used. It tells swarm's status line, the loop shows the figures, and with a headroom of
// 10% it parks before the second iteration, as at a limit's banner, until the reset; the
// second iteration, told 5%, finishes.
func TestE2EClaudeLimitHeadroomParks(t *testing.T) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	reset := time.Now().Add(40 * time.Second).Truncate(time.Second)
	// The first turn runs a command: Claude Code runs its status line a moment after each
	// answer, and the loop ends the iteration as soon as the turn ends.
	write := &fakeapi.ToolUse{Name: "Bash", Input: map[string]any{"command": "sleep 1 && echo half-written", "description": "Write"}}
	api := fakeapi.Start(t,
		fakeapi.Rule{When: fakeapi.Match{ToolResult: true, LastBlockContains: "half-written"}, Times: 1,
			Reply: fakeapi.Reply{Text: "Half of it written.", Headers: unifiedLimits(0.95, reset, 0.4)}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "write the report"}, Times: 1,
			Reply: fakeapi.Reply{Text: "Writing.", ToolUse: write, Headers: unifiedLimits(0.95, reset, 0.4)}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "write the report"},
			Reply: fakeapi.Reply{Text: "All written. " + doneMarker, Headers: unifiedLimits(0.05, reset.Add(5*time.Hour), 0.41)}},
	)
	seedClaudeHome(t, e.home, fullySetUp(e.work))
	e.writeWork("PROMPT.md", "please write the report.\n")
	var env []string
	for _, kv := range claudeEnv(api.URL(), e.home) {
		if !strings.HasPrefix(kv, "ANTHROPIC_API_KEY=") {
			env = append(env, kv)
		}
	}
	env = append(env, "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-fake-subscription-token", "CLAUDE_CODE_MAX_RETRIES=0")
	args := append([]string{"spawn", "--name", "pace", "--ralph", "--prompt-file", "PROMPT.md", "--max-iterations", "3",
		"--limit-margin", "1", "--limit-headroom", "10"}, envFlags(env)...)
	e.must(append(args, "--", bins.claude, "--dangerously-skip-permissions")...)

	st := e.waitLoop("pace", 90*time.Second, func(st map[string]any) bool { return st["status"] == "waiting" })
	if why, _ := st["waiting_for"].(string); !strings.Contains(why, "5-hour limit 95% used, within the headroom of 10%") {
		t.Errorf("waiting for %q", why)
	}
	status := e.must("ralph", "status", "pace")
	if !strings.Contains(status, "Plan limits: 5-hour limit: 95% used, resets ") || !strings.Contains(status, "; 7-day: 40%; headroom 10%") {
		t.Errorf("ralph status while parked:\n%s", status)
	}
	var js struct {
		Pace       string `json:"pace"`
		RateLimits struct {
			FiveHour struct {
				UsedPercent float64 `json:"used_percent"`
				ResetsAt    string  `json:"resets_at"`
			} `json:"five_hour"`
		} `json:"rate_limits"`
	}
	if err := json.Unmarshal([]byte(e.must("ralph", "status", "pace", "--format", "json")), &js); err != nil ||
		js.RateLimits.FiveHour.UsedPercent != 95 || js.RateLimits.FiveHour.ResetsAt != reset.UTC().Format(time.RFC3339) ||
		!strings.HasPrefix(js.Pace, "5-hour limit: 95% used") {
		t.Errorf("ralph status --format json: %+v %v", js, err)
	}
	st = e.waitDone("pace", 150*time.Second, 2)
	if time.Now().Before(reset) {
		t.Errorf("resumed before the reset at %v", reset)
	}
	if st["total_failures"] != float64(0) {
		t.Errorf("failures counted: %v", st["total_failures"])
	}
	events := e.must("events", "--kind", "loop.parked", "--worker", "pace")
	if !strings.Contains(events, "headroom") {
		t.Errorf("no loop.parked event naming the headroom:\n%s", events)
	}
	expectLog(t, "iterations log", e.loopFile("pace", "iterations.log"), "[LIMIT] iteration 1 5-hour limit 95% used",
		"[RESUME] usage limit reset", "[START] iteration 2/3")
}
