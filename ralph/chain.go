package ralph

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/state"
)

// Chains (--chain "planner:10 -> builder:20"): loops that run one after another in the same
// worker, each with its agent profile and iteration limit. A step is done when its loop ends
// complete (or done); a step that fails or stagnates stops the chain.

// ChainStep is one step as defined.
type ChainStep struct {
	Agent         string   `json:"agent"`
	MaxIterations int      `json:"maxIterations"`
	Checks        []string `json:"checkers,omitempty"` // the step's own checkers (--check AGENT:SPEC)
}

var stepRe = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_.-]*):([0-9]+)$`)

// ParseChain reads "a:10 -> b:20". Mistakes are reported with the (1-based) position of the
// step in the definition.
func ParseChain(def string) ([]ChainStep, error) {
	if strings.TrimSpace(def) == "" {
		return nil, errors.New("invalid --chain: empty (expected AGENT:ITERATIONS -> AGENT:ITERATIONS ...)")
	}
	var steps []ChainStep
	pos := 0
	for i, part := range strings.Split(def, "->") {
		at := pos + 1 + len(part) - len(strings.TrimLeft(part, " \t"))
		pos += len(part) + 2
		m := stepRe.FindStringSubmatch(strings.TrimSpace(part))
		if m == nil {
			return nil, fmt.Errorf("invalid --chain at position %d (step %d, %q): expected AGENT:ITERATIONS, as in planner:10 -> builder:20",
				at, i+1, strings.TrimSpace(part))
		}
		n, err := strconv.Atoi(m[2])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("invalid --chain at position %d (step %d): %s needs at least 1 iteration", at, i+1, m[1])
		}
		steps = append(steps, ChainStep{Agent: m[1], MaxIterations: n})
	}
	return steps, nil
}

// Chain step and chain statuses.
const (
	ChainPending  = "pending"
	ChainRunning  = "running"
	ChainComplete = "complete"
	ChainFailed   = "failed"
)

// ChainStepState is a step and how it went.
type ChainStepState struct {
	ChainStep
	Profile     config.AgentProfile `json:"profile"`
	Status      string              `json:"status"`
	ExitReason  string              `json:"exitReason,omitempty"`
	StartedAt   string              `json:"startedAt,omitempty"`
	CompletedAt string              `json:"completedAt,omitempty"`
}

// ChainState is $SWARM_DIR/ralph/<name>/chain.json.
type ChainState struct {
	ID          string           `json:"id"`
	Definition  string           `json:"definition"`
	Steps       []ChainStepState `json:"steps"`
	CurrentStep int              `json:"currentStep"`
	Status      string           `json:"status"`
	StartedAt   string           `json:"startedAt"`
	CompletedAt string           `json:"completedAt,omitempty"`
}

// NewChain is a chain about to run its first step.
func NewChain(id, def string, steps []ChainStep, now time.Time) *ChainState {
	cs := &ChainState{ID: id, Definition: def, Status: ChainRunning, StartedAt: now.Format(time.RFC3339)}
	for _, s := range steps {
		cs.Steps = append(cs.Steps, ChainStepState{ChainStep: s, Status: ChainPending})
	}
	cs.Steps[0].Status, cs.Steps[0].StartedAt = ChainRunning, cs.StartedAt
	return cs
}

// ChainAction is what follows a step's loop ending.
type ChainAction int

// What a chain does when a step's loop has ended.
const (
	ChainStay ChainAction = iota // nothing: the step's loop did not end with a verdict
	ChainNext                    // start the next step
	ChainDone                    // the last step completed: the chain is complete
	ChainStop                    // the step failed or stagnated: the chain stops
)

// StepEnded records how the current step's loop ended and says what follows.
func (cs *ChainState) StepEnded(o Outcome, reason string, now time.Time) ChainAction {
	if cs.Status != ChainRunning || cs.CurrentStep >= len(cs.Steps) {
		return ChainStay
	}
	step := &cs.Steps[cs.CurrentStep]
	at := now.Format(time.RFC3339)
	switch o {
	case OutcomeComplete:
		step.Status, step.ExitReason, step.CompletedAt = ChainComplete, reason, at
		if cs.CurrentStep == len(cs.Steps)-1 {
			cs.Status, cs.CompletedAt = ChainComplete, at
			return ChainDone
		}
		cs.CurrentStep++
		cs.Steps[cs.CurrentStep].Status, cs.Steps[cs.CurrentStep].StartedAt = ChainRunning, at
		return ChainNext
	case OutcomeFailure, OutcomeStagnated:
		step.Status, step.ExitReason, step.CompletedAt = ChainFailed, reason, at
		cs.Status, cs.CompletedAt = ChainFailed, at
		return ChainStop
	}
	return ChainStay
}

// Resumed puts a stopped chain back to running at its current step (swarm ralph resume).
func (cs *ChainState) Resumed() {
	if cs.Status != ChainFailed || cs.CurrentStep >= len(cs.Steps) {
		return
	}
	cs.Status, cs.CompletedAt = ChainRunning, ""
	step := &cs.Steps[cs.CurrentStep]
	step.Status, step.ExitReason, step.CompletedAt = ChainRunning, "", ""
}

// Line is the chain in one line: "planner ✓ → builder (3/20) → tester".
func (cs *ChainState) Line(iteration int) string {
	parts := make([]string, len(cs.Steps))
	for i, s := range cs.Steps {
		switch {
		case s.Status == ChainComplete:
			parts[i] = s.Agent + " ✓"
		case s.Status == ChainFailed:
			parts[i] = fmt.Sprintf("%s ✗ (%s)", s.Agent, s.ExitReason)
		case i == cs.CurrentStep && s.Status == ChainRunning:
			parts[i] = fmt.Sprintf("%s (%d/%d)", s.Agent, iteration, s.MaxIterations)
		default:
			parts[i] = s.Agent
		}
	}
	return strings.Join(parts, " → ")
}

// ChainPath is the loop's chain state, when it runs a chain.
func (d Dir) ChainPath() string { return filepath.Join(d.Path, "chain.json") }

// LoadChain reads the chain; nil when the loop is no chain.
func (d Dir) LoadChain() (*ChainState, error) { return readOptional[ChainState](d.ChainPath()) }

// SaveChain writes the chain atomically.
func (d Dir) SaveChain(cs *ChainState) error { return state.WriteJSON(d.ChainPath(), cs) }

// ApplyStep turns the loop state into a fresh loop of chain step i.
func (st *State) ApplyStep(i int, step ChainStepState, runID string) {
	p := step.Profile
	st.ChainStep, st.RunID = i, runID
	st.PromptFile, st.MaxIterations = p.PromptFile, step.MaxIterations
	st.Checks = append(append([]string{}, p.Checks...), step.Checks...)
	st.SetDonePatterns(p.DonePatterns, !st.NoBuiltinMarkers)
	if p.InactivityTimeout > 0 {
		st.InactivityTimeout = p.InactivityTimeout
	}
	if p.PromptMode != "" {
		st.PromptMode = p.PromptMode
	}
	if len(p.Cmd) > 0 {
		st.Agent = filepath.Base(p.Cmd[0])
	}
	st.ResetForNextLoop()
}
