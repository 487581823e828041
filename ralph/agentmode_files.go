package ralph

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph/inbox"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/templates"
)

// Agent mode's files: the worker's agent.json and agent log, and in the project the session,
// the plan and the prompt overrides.

// AgentKeep are the project's paths that a spec's commit or set-aside never touches: the
// queue and its specs, the plan and the session are the agent's, not the spec's (and so are
// the lock and the logs that earlier versions kept in the project).
var AgentKeep = []string{"ralph/inbox.jsonl", "ralph/.inbox.lock", "ralph/plan.jsonl", "ralph/.agent-session",
	"ralph/specs", "build/ralph-logs"}

// AgentExcluded are the patterns (of a .gitignore) of agent mode's own files in the project,
// which it keeps out of `git status` through the repository's info/exclude: the plan, the
// session, and the lock and logs of earlier versions. The specs are the user's, and the
// inbox is the user's queue (committed and pushed for a shared inbox, where hiding it would
// make git add refuse it): both stay in sight.
var AgentExcluded = []string{"/ralph/plan.jsonl", "/ralph/.agent-session", "/ralph/.inbox.lock", "/build/ralph-logs/"}

// AgentExcludedHeader is the comment above them in info/exclude.
const AgentExcludedHeader = "# swarm agent mode's own files (swarm guide agent-mode)"

// AgentModePath is the worker's agent mode state, when it runs in agent mode.
func (d Dir) AgentModePath() string { return filepath.Join(d.Path, "agent.json") }

// AgentPromptPath is the current stage's prompt, filled in for the current spec.
func (d Dir) AgentPromptPath() string { return filepath.Join(d.Path, "agent-prompt.md") }

// WriteAgentPrompt puts the prompt of the agent's stage where its loop reads it.
func (d Dir) WriteAgentPrompt(prompt string) error {
	if err := os.MkdirAll(d.Path, 0o700); err != nil {
		return err
	}
	return os.WriteFile(d.AgentPromptPath(), []byte(prompt), 0o600)
}

// LoadAgentMode reads agent.json; nil when the worker is no agent.
func (d Dir) LoadAgentMode() (*AgentMode, error) { return readOptional[AgentMode](d.AgentModePath()) }

// readOptional reads a JSON file that may not be there (nil, no error).
func readOptional[T any](path string) (*T, error) {
	var v T
	if err := state.ReadJSON(path, &v); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	return &v, nil
}

// SaveAgentMode writes agent.json, and the session into the project while the agent works
// (the seed's ralph/.agent-session, which a new agent resumes from).
func (d Dir) SaveAgentMode(am *AgentMode) error {
	if err := state.WriteJSON(d.AgentModePath(), am); err != nil {
		return err
	}
	return state.WriteJSON(SessionPath(am.Project), am.Session)
}

// SessionPath is the project's agent session file.
func SessionPath(project string) string { return filepath.Join(project, "ralph", ".agent-session") }

// PlanPath is the project's plan: the current spec and its tasks.
func PlanPath(project string) string { return filepath.Join(project, "ralph", "plan.jsonl") }

// SpecPath is where a queued spec's file lives.
func SpecPath(project, spec string) string { return filepath.Join(project, "ralph", "specs", spec) }

// LoadSession reads the project's session; nil when there is none (no agent was interrupted).
func LoadSession(project string) (*AgentSession, error) {
	s, err := readOptional[AgentSession](SessionPath(project))
	if err != nil {
		return nil, fmt.Errorf("%s: %w (remove it to start a new session)", SessionPath(project), err)
	}
	return s, nil
}

// planLine is a record of ralph/plan.jsonl: the spec ({"t":"spec"}) or one of its tasks.
type planLine struct {
	T    string `json:"t"`
	Spec string `json:"spec,omitempty"`
}

// StartPlan makes the plan the new spec's: its spec line, no tasks yet.
func StartPlan(project, spec string) error {
	line, _ := json.Marshal(planLine{T: "spec", Spec: spec})
	return state.WriteFileAtomic(PlanPath(project), append(line, '\n'), 0o644)
}

// PlanTasks counts the tasks in the plan of spec; a plan of another spec has none for it.
// Lines that are not JSON records are not tasks.
func PlanTasks(project, spec string) int {
	f, err := os.Open(PlanPath(project))
	if err != nil {
		return 0
	}
	defer f.Close()
	tasks, ofSpec := 0, false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		var l planLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		switch l.T {
		case "spec":
			ofSpec = l.Spec == spec
		case "task":
			if ofSpec {
				tasks++
			}
		}
	}
	return tasks
}

// AgentPrompt fills in the prompt of a stage for a spec: the project's ralph/PLAN_PROMPT.md
// or ralph/BUILD_PROMPT.md, else the one swarm ships.
func AgentPrompt(project, stage string, rec inbox.Record) (string, error) {
	name, text := "BUILD_PROMPT.md", templates.BuildPrompt
	if stage == StagePlan {
		name, text = "PLAN_PROMPT.md", templates.PlanPrompt
	}
	if own, err := os.ReadFile(filepath.Join(project, "ralph", name)); err == nil {
		text = string(own)
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("cannot read ralph/%s: %w", name, err)
	}
	spec, err := os.ReadFile(SpecPath(project, rec.Spec))
	if err != nil {
		return "", fmt.Errorf("spec file not found: ralph/specs/%s", rec.Spec)
	}
	return strings.NewReplacer(
		"{{spec_path}}", filepath.Join("ralph", "specs", rec.Spec),
		"{{spec_name}}", SpecName(rec.Spec),
		"{{spec_id}}", rec.ID,
		"{{plan_path}}", filepath.Join("ralph", "plan.jsonl"),
		"{{spec}}", strings.TrimRight(string(spec), "\n"),
	).Replace(text), nil
}

// SpecName is a spec's name without its extension, as commits name it: feature-x.
func SpecName(spec string) string {
	return strings.TrimSuffix(filepath.Base(spec), filepath.Ext(spec))
}

// AgentLogPath is a new agent log, in the agent worker's own directory of the state
// directory ($SWARM_DIR/ralph/NAME/agent-<timestamp>.log), beside its other logs: never in the
// project, where it would be one more untracked file. A dry run's plans are kept beside it.
func (d Dir) AgentLogPath(now time.Time) string {
	return filepath.Join(d.Path, "agent-"+now.UTC().Format("20060102-150405")+".log")
}

// AgentLog appends a line to the agent log: "[2025-01-20T10:00:00Z] FETCH: q-a1b2 x.md".
func AgentLog(path string, now time.Time, format string, args ...any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return state.AppendLine(path, fmt.Sprintf("[%s] %s", inbox.Now(now), fmt.Sprintf(format, args...)))
}

// NoteAgentIteration logs a CONSTRUCT iteration's start in the agent log.
func (d Dir) NoteAgentIteration(now time.Time, n int) error {
	am, err := d.LoadAgentMode()
	if err != nil || am == nil || am.Stage != StageConstruct || am.Log == "" {
		return nil
	}
	return AgentLog(am.Log, now, "CONSTRUCT: starting iteration %d", n)
}

// SequencePending reports a loop of an agent or a chain that ended with a verdict of its own
// while the next loop was still to be decided or started: its monitor died in between, and a
// new monitor must carry on. A loop ended from outside (killed), or without a verdict, has
// nothing to carry on.
func (d Dir) SequencePending(st *State) bool {
	if st.Status != StatusStopped && st.Status != StatusFailed {
		return false
	}
	if OutcomeOf(st) == OutcomeOther && st.ExitReason != "budget_exceeded" {
		return false
	}
	if am, err := d.LoadAgentMode(); err == nil && am != nil {
		return am.Stage != ""
	}
	cs, err := d.LoadChain()
	return err == nil && cs != nil && cs.Status == ChainRunning
}
