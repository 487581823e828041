package ralph

// Unattended is what keeps a loop going through a night without a person: the plan's limits
// as the agent last told them (pace.go) with the share of the 5-hour limit kept in hand, and
// what the loop answers by itself when the agent asks for a command that skipping permissions
// does not skip (dangerous.go). Part of the loop's state.
type Unattended struct {
	RateLimits    *RateLimits `json:"rate_limits,omitempty"`
	LimitHeadroom int         `json:"limit_headroom,omitempty"` // --limit-headroom, percent; 0: none
	OnDangerous   string      `json:"on_dangerous,omitempty"`   // --on-dangerous: ask or no
}
