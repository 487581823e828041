package driver

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/state/eventlog"
)

// Every iteration of a loop starts through Starter.Start: the first in the spawn that creates
// the worker (so that the worker's window is up and its agent started when spawn returns), every
// later one in the loop's driver, in the worker's pane. The steps and their order are the
// same; how the agent's pane is made, and who writes the loop state, are the Pane's.

// A Pane is where an iteration's agent starts.
type Pane interface {
	// Command is the worker's command; an error says the worker is gone.
	Command() ([]string, error)
	// Start starts the agent as launch says. Just before the agent starts it calls hooks with
	// the directory the agent runs in (spawn only knows it once the worker's worktree exists).
	// Once the agent runs it calls begin on the loop state it then writes, with that directory
	// and the time. It reports false, and no error, when the agent was not started because the
	// loop no longer runs (a pause or a kill came first).
	Start(launch ralph.Launch, hooks func(dir string), begin func(st *ralph.State, dir string, now time.Time)) (bool, error)
}

// Starter starts the iterations of one loop.
type Starter struct {
	Dir     ralph.Dir
	Workers *state.Dir
	Name    string   // the worker's
	Extra   []string // what every agent of the loop gets in its environment on top of the iteration's
	Wrapper []string // swarm's own wrapper
	Now     func() time.Time
	// Detail receives the hooks' output, Say the loop's own lines ("[ralph] NAME: ...").
	Detail io.Writer
	Say    func(format string, args ...any)
	// Recorded is given the outcome of every record written besides the loop state.
	Recorded func(error)
	// Monitor is the process that drives the loop from now on, for the supervision state; 0
	// when that is not this process (spawn starts the monitor later, and it notes itself).
	Monitor int
	// Announce says the iteration's starting line. Spawn says iteration 1's itself once the
	// loop runs: not with --no-run, and in the foreground after the line that names the worker.
	Announce bool
	// AgentNote notes a CONSTRUCT iteration's start in the agent log. swarm agent notes
	// iteration 1's itself, before the loop (and the agent's state in it) exists.
	AgentNote bool
	Pane      Pane
	// Context ends the pre-iteration hooks that run when it ends (the loop is being
	// stopped); nil: they run to their end or their time limit.
	Context context.Context
}

// StartError is an iteration that could not start before its agent was started; Reason is
// the loop's exit reason for it.
type StartError struct {
	Reason string // ReasonPromptUnreadable, ReasonWorkerGone or ReasonIOError
	Err    error
}

// The reasons of a StartError.
const (
	ReasonPromptUnreadable = "prompt_unreadable"
	ReasonWorkerGone       = "worker_gone"
	ReasonIOError          = "io_error"
)

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// Start starts iteration n of the loop whose state is st: a fresh copy of the prompt, the
// pre-iteration hooks, a fresh agent session and launch, the agent in its pane, the loop state
// (through the Pane), then the records: agent log, supervision state, starting line and START
// event. It reports whether the agent started; an error from the Pane comes back as it is.
func (s Starter) Start(st *ralph.State, n int) (bool, error) {
	prompt, err := ReadPrompt(st.PromptFile)
	if err != nil {
		return false, &StartError{ReasonPromptUnreadable, err}
	}
	cmd, err := s.Pane.Command()
	if err != nil {
		return false, &StartError{ReasonWorkerGone, err}
	}
	prompt = s.Dir.WithNextPromptNote(prompt)
	if err := os.WriteFile(s.Dir.PromptCopy(), []byte(prompt), 0o600); err != nil {
		return false, &StartError{ReasonIOError, err}
	}
	session, token := uuid.NewString(), uuid.NewString()
	launch := ralph.IterationLaunch(s.Dir, s.Workers, s.Name, ralph.AgentCommand(cmd, session), st, n, s.Extra, s.Wrapper, token)
	hooks := func(dir string) { s.preIterationHooks(st, n, cmd, dir) }
	begin := func(cur *ralph.State, dir string, now time.Time) {
		// Where the iteration starts from: for the test gate and the commits it records.
		cur.BeginIteration(n, now, git.Head(dir))
		cur.AgentSession, cur.AgentTokenSum = session, ralph.TokenSum(token)
	}
	started, err := s.Pane.Start(launch, hooks, begin)
	if err != nil || !started {
		return false, err // the note stays for the iteration that does start
	}
	// The note is for this iteration only, and it started: the copy keeps the note for its
	// delivery.
	_ = os.Remove(s.Dir.NextPromptNote())
	if s.AgentNote {
		s.Recorded(s.Dir.NoteAgentIteration(s.Now(), n))
	}
	s.Recorded(s.Dir.UpdateSupervision(func(rs *ralph.SupervisionState) {
		rs.Iteration = n
		if s.Monitor > 0 {
			rs.PID = s.Monitor
		}
	}))
	if s.Announce {
		s.Say("starting iteration %d/%d", n, st.MaxIterations)
	}
	s.Recorded(s.Dir.LogEvent(s.Now(), "START", fmt.Sprintf("iteration %d/%d", n, st.MaxIterations)))
	// An event never holds a start up: one that cannot be written is left out.
	_ = s.Dir.Tell(eventlog.Event{Kind: eventlog.IterationStarted, Iteration: n})
	return true, nil
}

// preIterationHooks runs the pre-iteration hooks of iteration n in dir, where its agent runs.
func (s Starter) preIterationHooks(st *ralph.State, n int, cmd []string, dir string) {
	if !ralph.HasHook(st.Hooks, config.HookPreIteration) {
		return
	}
	agent := st.Agent
	if agent == "" && len(cmd) > 0 {
		agent = filepath.Base(cmd[0])
	}
	ctx := HookContext{Agent: agent, Iteration: n, MaxIterations: st.MaxIterations, ExitCode: st.LastExitCode,
		Status: st.Status, WorkDir: dir, Worker: s.Name}
	event := func(kind, text string) { s.Recorded(s.Dir.LogEvent(s.Now(), kind, text)) }
	runCtx := s.Context
	if runCtx == nil {
		runCtx = context.Background()
	}
	reportHooks(runCtx, st, config.HookPreIteration, ctx, s.Detail, s.Say, event)
}

// reportHooks runs the hooks of typ; each that failed is said and logged as a HOOK event.
// cutShort says ctx ended while they ran.
func reportHooks(ctx context.Context, st *ralph.State, typ string, hc HookContext, out io.Writer, say func(string, ...any),
	event func(kind, text string)) (cutShort bool) {
	for _, r := range RunHooks(ctx, st.Hooks, typ, hc, st.EffectiveHookTimeout(), out) {
		if r.Failed() {
			say("hook %s", r.LogText(st.EffectiveHookTimeout()))
			event("HOOK", r.LogText(st.EffectiveHookTimeout()))
		}
		cutShort = cutShort || r.CutShort
	}
	return cutShort
}
