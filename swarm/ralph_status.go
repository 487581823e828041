package swarm

import (
	"fmt"
	"io"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
)

func ralphStatusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show a loop's progress",
		ArgsUsage: "NAME",
		Description: `Examples:
   swarm ralph status agent
   swarm ralph status agent --format json`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "text", Usage: "text or json"}},
		Action: func(c *cli.Context) error {
			o := ralphStatusOptions{Args: c.Args().Slice(), Format: c.String("format")}
			return withEnv(c, o.check, func(e *env) error { return runRalphStatus(e, o) })
		},
	}
}

// ralphStatusOptions are the arguments of `swarm ralph status`.
type ralphStatusOptions struct {
	Args   []string
	Format string // text or json
}

func (o ralphStatusOptions) check() error {
	err := exactlyOneName(o.Args, "swarm ralph status NAME")
	if err == nil {
		_, err = checkFormat(o.Format, "text", "json")
	}
	return err
}

func runRalphStatus(e *env, o ralphStatusOptions) error {
	v, ld, err := loopValue(e, o.Args[0])
	if err != nil {
		return err
	}
	if o.Format == "json" {
		return printJSON(e, v)
	}
	printLoopStatus(e.stdout, v, time.Now())
	if v.Landing != nil {
		fmt.Fprintf(e.stdout, "Landing: %s\n", landingText(v.Landing))
	}
	if full, free := diskFull(ld.Path); full {
		// The monitor cannot write its state or its log; this is the one place left to say so.
		fmt.Fprintf(e.stdout, "Warning: no space left where the loop keeps its files (%s, %d bytes free): it cannot record its progress\n", ld.Path, free)
	}
	return nil
}

// loopValue is what `ralph status NAME --format json` prints, and the loop's directory.
func loopValue(e *env, name string) (loopView, ralph.Dir, error) {
	regent.Revive(e.Machine)
	w, ld, st, err := loadLoop(e, name)
	if isNotFound(err) {
		// A cleaned worker's loop history is kept: its status is still worth reading.
		w, ld, st, err = loadLoopHistory(e, name, err)
	}
	if err != nil {
		return loopView{}, ld, err
	}
	v := viewLoop(ld, st, w, regent.NewClient(e.Dir()).PID())
	if w != nil {
		v.Landing = workerLanding(e, w)
	}
	v.RefusedConnections = readEgress(e.Dir().EgressPath(name))
	return v, ld, nil
}

// loadLoopHistory reads the loop state of a worker that has no record any more; notFound is
// the answer when there is none either.
func loadLoopHistory(e *env, name string, notFound error) (*state.Worker, ralph.Dir, *ralph.State, error) {
	ld := ralph.DirFor(e.Dir(), name)
	if !ld.Exists() {
		return nil, ld, nil, notFound
	}
	st, err := ld.Load()
	if err != nil {
		return nil, ld, nil, loopStateError(ld, name, err)
	}
	return nil, ld, st, nil
}

// diskFull reports a file system with (next to) no space left for ordinary users.
func diskFull(path string) (bool, uint64) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(path, &fs); err != nil {
		return false, 0
	}
	free := fs.Bavail * uint64(fs.Bsize)
	return free < 64*1024, free
}

// loopView is a loop as status and ls show it: its state and what is known about it now.
type loopView struct {
	*ralph.State
	// State is the loop's state word (state_words.go): status's "stopped" said as done,
	// killed or stopped.
	Word string `json:"state"`
	// Detail qualifies the word, as ls says it ("dialog: trust-folder", "max_iterations").
	Detail string `json:"state_detail,omitempty"`
	// NeedsPerson is what the loop needs a person for and since when; null when nothing.
	NeedsPerson  *needJSON `json:"needs_person"`
	WorkerStatus string    `json:"worker_status"`
	MonitorAlive bool      `json:"monitor_alive"`
	// Monitor is what drives the loop: "regent" (the state directory's Regent), "own" (a
	// monitor process of its own) or "" (nothing).
	Monitor     string                  `json:"monitor"`
	RegentState *ralph.SupervisionState `json:"regent_state"`
	Chain       *ralph.ChainState       `json:"chain,omitempty"`
	Agent       *agentView              `json:"agent,omitempty"`
	// Landing is where the loop's branch stands in `swarm land`'s queue, if it was offered.
	Landing *landingJSON `json:"landing,omitempty"`
	// Sandbox is how the worker's agent is confined, as spawn recorded it; absent when it is
	// not (or the worker has no record any more). RefusedConnections is what its egress
	// proxy refused, when it refused any.
	Sandbox            *state.SandboxInfo `json:"sandbox,omitempty"`
	RefusedConnections *egressView        `json:"refused_connections,omitempty"`
	// Pace is the plan's limits as the agent last told them, in words ("5-hour limit: 62%
	// used, resets 03:00; 7-day: 40%"); rate_limits holds the figures.
	Pace string `json:"pace,omitempty"`
	// recorded says the worker has a record, which tells its sandbox.
	recorded bool
}

// viewLoop gathers what is shown of a loop; regent is the pid of the state directory's
// Regent (0: none runs).
func viewLoop(ld ralph.Dir, st *ralph.State, w *state.Worker, regent int) loopView {
	ws, status := wordGone, ""
	var sb *state.SandboxInfo
	if w != nil {
		ws, status, sb = w.Status, w.Status, w.Sandbox
	}
	rs := ld.LoadSupervision()
	cs, _ := ld.LoadChain()
	sw := stateOf(status, nil, st)
	v := loopView{State: st, WorkerStatus: ws, Word: sw.word, Detail: sw.detail, NeedsPerson: needOf(status, st),
		MonitorAlive: ld.MonitorAlive(), RegentState: &rs, Chain: cs, Agent: viewAgent(ld), Sandbox: sb, recorded: w != nil}
	if st.RateLimits != nil {
		v.Pace = st.RateLimits.Words(time.Now(), time.Local)
	}
	switch {
	case v.MonitorAlive && regent != 0 && st.MonitorPID == regent:
		v.Monitor = "regent"
	case v.MonitorAlive:
		v.Monitor = "own"
	}
	return v
}

// printLoopStatus writes the status text; times are shown in local time, whatever zone
// they were stored in.
func printLoopStatus(out io.Writer, v loopView, now time.Time) {
	st := v.State
	if v.Agent != nil {
		printAgentStatus(out, v.Agent, st, now)
	}
	fmt.Fprintf(out, "Ralph Loop: %s\n", st.WorkerName)
	fmt.Fprintf(out, "Status: %s\n", v.statusText())
	if n := v.NeedsPerson; n != nil {
		fmt.Fprintf(out, "Needs a person: %s\n", needText(n, now))
	}
	fmt.Fprintf(out, "Iteration: %d/%d\n", st.CurrentIteration, st.MaxIterations)
	fmt.Fprintf(out, "Started: %s\n", ralph.FormatTime(st.Started))
	fmt.Fprintf(out, "Current iteration started: %s\n", ralph.FormatTime(st.LastIterationStarted))
	fmt.Fprintf(out, "Running time: %s (time paused not counted)\n", words.Short(st.RunningTime(now)))
	fmt.Fprintf(out, "Consecutive failures: %d\n", st.ConsecutiveFailures)
	fmt.Fprintf(out, "Total failures: %d\n", st.TotalFailures)
	fmt.Fprintf(out, "Inactivity timeout: %ds\n", st.InactivityTimeout)
	fmt.Fprintf(out, "Done pattern: %s\n", donePatternsText(st))
	fmt.Fprintf(out, "Built-in markers: %s\n", builtinMarkersText(st))
	fmt.Fprintf(out, "Stagnation: %s\n", stagnationText(st))
	printCompletionStatus(out, st, v.Chain)
	if st.ExitReason != "" {
		fmt.Fprintf(out, "Exit reason: %s\n", st.ExitReason)
	}
	if st.LastExitCode != nil {
		fmt.Fprintf(out, "Last exit code: %d\n", *st.LastExitCode)
	}
	printLastFailure(out, st.LastFailure, now)
	if st.MaxContext > 0 {
		fmt.Fprintf(out, "Context: %s\n", contextText(st))
	}
	if p := paceText(v); p != "" {
		fmt.Fprintf(out, "Plan limits: %s\n", p)
	}
	printScreenStatus(out, st)
	if t := ralph.ParseTime(st.LastScreenChange); !t.IsZero() {
		fmt.Fprintf(out, "Last screen change: %s (%s)\n", ralph.FormatTime(st.LastScreenChange), words.Ago(t, now))
	}
	fmt.Fprintf(out, "Worker: %s\n", v.WorkerStatus)
	printSandboxStatus(out, v)
	printConfigFiles(out, st.ConfigFiles)
	printRegentStatus(out, ralph.EffectiveSupervision(st.Supervision), v.RegentState)
	if st.Notify != nil && st.Notify.Any() {
		fmt.Fprintf(out, "Notify: %s\n", notifyText(*st.Notify))
	}
	switch v.Monitor {
	case "regent":
		fmt.Fprintf(out, "Monitor: regent (pid %d)\n", st.MonitorPID)
	case "own":
		fmt.Fprintf(out, "Monitor: alive (pid %d)\n", st.MonitorPID)
	default:
		fmt.Fprintf(out, "Monitor: not running\n")
	}
}

// printScreenStatus says what the agent's screen shows that a person is needed for.
func printScreenStatus(out io.Writer, st *ralph.State) {
	if st.BlockedBy != "" {
		fmt.Fprintf(out, "Blocked by: %s\n", screen.DialogDescription(st.BlockedBy))
	}
	if st.UnknownScreen != "" {
		fmt.Fprintf(out, "Unknown screen: no input prompt and no dialog swarm knows; kept in %s (please report it with the agent's version)\n", st.UnknownScreen)
	}
	if st.NeedsPermission != "" {
		fmt.Fprintf(out, "Needs permission: %s (answer it with 'swarm answer %s yes' or no)\n", st.NeedsPermission, st.WorkerName)
	}
}

// printLastFailure shows the loop's last failed iteration with the agent's last lines, the
// reason a fast-failing agent gives being there alone.
func printLastFailure(out io.Writer, f *ralph.Failure, now time.Time) {
	if f == nil {
		return
	}
	when := ""
	if t := ralph.ParseTime(f.At); !t.IsZero() {
		when = fmt.Sprintf(", %s (%s)", ralph.FormatTime(f.At), words.Ago(t, now))
	}
	fmt.Fprintf(out, "Last failure: iteration %d (exit: %s)%s\n", f.Iteration, screen.Printable(f.Exit, 40), when)
	if len(f.Lines) == 0 {
		fmt.Fprintf(out, "    (nothing on the agent's screen)\n")
	}
	for _, l := range f.Lines {
		// Made safe by the loop as it kept them; again here, as the state file may have been
		// edited since.
		fmt.Fprintf(out, "    %s\n", screen.Printable(l, maxShownLine))
	}
}

// maxShownLine bounds a line of the agent's screen that status shows from the loop's files.
const maxShownLine = 400

// statusText is the loop's state word with what qualifies it, unless a line of its own says
// that (the exit reason): "blocked (dialog: trust-folder)", "paused (finishing iteration)".
func (v loopView) statusText() string {
	if v.Detail == "" || v.Detail == v.ExitReason {
		return v.Word
	}
	return v.Word + " (" + v.Detail + ")"
}

// needText is a need with when it began: "dialog: trust-folder, since 2026-11-25 02:00:00 (6h
// ago)".
func needText(n *needJSON, now time.Time) string {
	t, err := time.Parse(time.RFC3339, n.Since)
	if err != nil {
		return n.What
	}
	return fmt.Sprintf("%s, since %s (%s)", n.What, t.Local().Format("2006-01-02 15:04:05"), words.Ago(t, now))
}

func printRegentStatus(out io.Writer, rc ralph.SupervisionConfig, rs *ralph.SupervisionState) {
	if !rc.Enabled {
		fmt.Fprintf(out, "Regent: off\n")
		return
	}
	fmt.Fprintf(out, "Regent: on (%s)\n", strings.Join(regentSettings(rc), ", "))
	fmt.Fprintf(out, "Resurrections: %d\n", rs.Resurrections)
	fmt.Fprintf(out, "Rollbacks: %d\n", rs.Rollbacks)
	if rs.LastOutputAt != "" {
		fmt.Fprintf(out, "Last output: %s\n", ralph.FormatTime(rs.LastOutputAt))
	}
	if rs.LastCommit != "" {
		fmt.Fprintf(out, "Last commit: %s\n", rs.LastCommit)
	}
}

// printConfigFiles lists the configuration files the loop was started under, each applied or
// ignored; a loop that did not record them (an older swarm's) shows nothing.
func printConfigFiles(out io.Writer, sources []config.Source) {
	switch {
	case sources == nil:
		return
	case len(sources) == 0:
		fmt.Fprintf(out, "Config files: none (defaults and flags)\n")
	}
	for _, src := range sources {
		// Made safe as recorded; again here, as the state file may have been edited since.
		fmt.Fprintf(out, "Config file: %s\n", screen.Printable(src.Text(), maxShownLine))
	}
}

// notifyText is where notifications go, in one line: "desktop, webhook (done, failed)".
func notifyText(n config.Notify) string {
	s := strings.Join(n.Channels(), ", ")
	if len(n.Events) > 0 {
		s += " (" + strings.Join(n.Events, ", ") + ")"
	}
	return s
}

// regentSettings names the Regent's settings that differ from doing nothing.
func regentSettings(rc ralph.SupervisionConfig) []string {
	parts := []string{fmt.Sprintf("max failures %d", rc.MaxFailures)}
	if rc.HangTimeoutSeconds > 0 {
		parts = append(parts, fmt.Sprintf("hang timeout %ds", rc.HangTimeoutSeconds))
	}
	if rc.IterationTimeout > 0 {
		parts = append(parts, fmt.Sprintf("iteration timeout %ds", rc.IterationTimeout))
	}
	if rc.TestCommand != "" {
		gate := "tests: " + rc.TestCommand
		if rc.RollbackOnTestFailure {
			gate += " (rollback on failure)"
		}
		parts = append(parts, gate)
	}
	if rc.Webhook != "" {
		parts = append(parts, "webhook set")
	}
	return parts
}

// contextText is the context watch in one line: "82% used (limit 75%, asked to wrap up)".
func contextText(st *ralph.State) string {
	used := "not seen yet"
	if st.ContextUsed > 0 {
		used = fmt.Sprintf("%d%% used", st.ContextUsed)
	}
	s := fmt.Sprintf("%s (limit %d%%", used, st.MaxContext)
	if st.ContextNudgeSent {
		s += ", asked to wrap up"
	}
	return s + ")"
}

// donePatternsText lists the loop's own done patterns: "A | B", or "(none)".
func donePatternsText(st *ralph.State) string {
	if pats := st.UserDonePatterns(); len(pats) > 0 {
		return strings.Join(pats, " | ")
	}
	return "(none)"
}

func builtinMarkersText(st *ralph.State) string {
	if st.NoBuiltinMarkers {
		return "off (--no-builtin-markers)"
	}
	return strings.Join(ralph.BuiltinMarkers, ", ")
}

// stagnationText is the breaker in one line: "1/3 iterations without git changes".
func stagnationText(st *ralph.State) string {
	switch {
	case st.StagnationLimit <= 0:
		return "off"
	case st.GitFingerprint == "":
		return "off (not a git repository)"
	}
	return fmt.Sprintf("%d/%d iterations without git changes", st.StagnantIterations, st.StagnationLimit)
}

// paceText is the plan's limits as the agent told them, with the headroom the loop keeps: ""
// when it was told none and keeps none.
func paceText(v loopView) string {
	p := v.Pace
	if h := v.State.LimitHeadroom; h > 0 {
		if p == "" {
			p = "not told yet"
		}
		p += fmt.Sprintf("; headroom %d%% (parks at %d%% of the 5-hour limit)", h, 100-h)
	}
	return p
}
