package web

import "time"

// report is a night of three workers in `swarm report --format json`'s shape: iterations of
// every outcome, a wait on a usage limit, costs.
func (f *fakeAPI) report() map[string]any {
	outcomes := map[string][]string{
		"alpha": {"ended", "ended", "failed", "done", "ended", "timed_out", "ended"},
		"beta":  {"ended", "hung", "failed", "ended"},
		"gamma": {"done", "ended", "failed", "ended", "usage_limit", "ended", "done"},
	}
	var workers []map[string]any
	for i, name := range []string{"alpha", "beta", "gamma"} {
		host := "local"
		if name == "gamma" {
			host = "buildbox"
		}
		var its []map[string]any
		for n, o := range outcomes[name] {
			start := f.now.Add(-11*time.Hour + time.Duration(n*80+i*25)*time.Minute)
			wait := 0
			if name == "gamma" && n == 5 {
				wait = 3600
				start = start.Add(time.Hour)
			}
			cost := 0.15 + float64(n%3)*0.2
			its = append(its, map[string]any{"n": n + 1, "started": start.Format(time.RFC3339),
				"ended": start.Add(55 * time.Minute).Format(time.RFC3339), "outcome": o, "duration_s": 3300,
				"waited":   map[string]any{"backoff_s": 0, "usage_limit_s": wait, "person_s": 0},
				"cost_usd": cost, "commits": 1})
		}
		workers = append(workers, map[string]any{"name": name, "host": host, "state": "running", "loop": true,
			"iterations": its, "outcomes": map[string]any{"total": len(its), "done": 1, "failed": 1},
			"cost_usd": 1.2, "commits": len(its), "checks": map[string]any{"ran": 2, "passed": 1, "failed": 1}})
	}
	return map[string]any{"since": f.at(12 * time.Hour), "until": f.at(0), "workers": workers,
		"totals": map[string]any{"workers": 3, "loops": 3, "outcomes": map[string]any{"total": 18, "done": 3, "failed": 3, "timed_out": 1, "hung": 1},
			"cost_usd": 6.1, "landed": 1, "sent_back": 1, "needs_person": 1, "unreachable": 1}}
}

// events are what `swarm events --format json` says of the same night.
func (f *fakeAPI) events() []map[string]any {
	return []map[string]any{
		{"id": 1, "time": f.at(9 * time.Hour), "kind": "iteration.ended", "host": "local", "worker": "alpha", "iteration": 3, "how": "api_error", "reason": "overloaded"},
		{"id": 2, "time": f.at(3 * time.Hour), "kind": "land.landed", "host": "local", "worker": "alpha", "branch": "swarm/alpha", "detail": "main", "commit": "abc1234def"},
		{"id": 3, "time": f.at(2 * time.Hour), "kind": "land.sent_back", "host": "local", "worker": "beta", "how": "breaks_tests", "reason": "go test failed"},
		{"id": 4, "time": f.at(10 * time.Minute), "kind": "iteration.started", "host": "local", "worker": "alpha", "iteration": 7},
		{"id": 5, "time": f.at(4 * time.Minute), "kind": "person.needed", "host": "local", "worker": "beta", "what": "permission", "detail": "Bash(rm -rf build)"},
	}
}
