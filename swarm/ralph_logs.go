package swarm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
)

func ralphLogsCommand() *cli.Command {
	return &cli.Command{
		Name:      "logs",
		Usage:     "show a loop's iteration log (or its monitor log)",
		ArgsUsage: "NAME",
		Description: `Without --monitor, the loop's events (iterations.log). --format json prints its
iteration records instead (iterations.jsonl): one JSON object per line, per finished
iteration, with runId, iteration, agent, startedAt, endedAt, durationMs, exitCode,
endReason, signals, checks, commits, tokens and cost (and lastLines, the agent's last lines
on screen, for a failed iteration).

Examples:
   swarm ralph logs agent
   swarm ralph logs agent --follow
   swarm ralph logs agent --monitor --lines 50
   swarm ralph logs agent --format json | jq -c '{iteration, endReason, signals}'`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f", "live"}, Usage: "keep printing new lines until the loop ends"},
			&cli.BoolFlag{Name: "monitor", Usage: "the monitor's log ([ralph] messages) instead of iteration events"},
			&cli.IntFlag{Name: "lines", Aliases: []string{"n"}, Usage: "only the last K lines (0: all)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text (events) or json (iteration records, one per line)"},
		},
		Action: func(c *cli.Context) error {
			o := ralphLogsOptions{Args: c.Args().Slice(), Follow: c.Bool("follow"), Monitor: c.Bool("monitor"), Lines: c.Int("lines"),
				Format: c.String("format")}
			return withEnv(c, o.check, func(e *env) error { return runRalphLogs(e, o) })
		},
	}
}

// ralphLogsOptions are the arguments of `swarm ralph logs`.
type ralphLogsOptions struct {
	Args    []string
	Follow  bool
	Monitor bool // monitor.log instead of iterations.log
	Lines   int  // > 0: only the last lines
	Format  string
}

func (o ralphLogsOptions) check() error {
	if err := exactlyOneName(o.Args, "swarm ralph logs NAME"); err != nil {
		return err
	}
	if o.Format != "" {
		if _, err := checkFormat(o.Format, "text", "json"); err != nil {
			return err
		}
	}
	if o.Format == "json" && o.Monitor {
		return fail("--format json prints the iteration records; the monitor log is text only")
	}
	return notNegative(float64(o.Lines), "--lines")
}

// runRalphLogs prints a loop's log. It reads no loop state unless following, so the logs
// of a loop whose state is damaged can still be read: they tell what happened to it.
func runRalphLogs(e *env, o ralphLogsOptions) error {
	ld, err := settledLoopDir(e, o.Args[0])
	if err != nil {
		return err
	}
	t := tail{path: ld.IterationsLog(), lines: o.Lines, follow: o.Follow, whole: isEventLine, torn: isTornEntry}
	if o.Monitor {
		t.path, t.whole = ld.MonitorLog(), nil
	}
	if o.Format == "json" {
		t.path, t.whole, t.torn = ld.IterationsJSONL(), isRecordLine, nil
	}
	if o.Format != "json" {
		color := colorFor(e.stdout)
		t.show = func(line string) string { return displayLogLine(line, color) }
	}
	t.more = func() bool {
		st, err := ld.Load()
		return err == nil && (st.Status == ralph.StatusRunning || st.Status == ralph.StatusWaiting || ld.MonitorAlive())
	}
	return t.run(e)
}

// settledLoopDir is the directory of the loop name, once a decision being recorded in it is
// (its state, its events and its lines are then read together).
func settledLoopDir(e *env, name string) (ralph.Dir, error) {
	if err := worker.ValidateName(name); err != nil {
		return ralph.Dir{}, err
	}
	ld := ralph.DirFor(e.Dir(), name)
	if !hasLoop(ld) {
		if _, _, err := e.Load(name); err != nil {
			return ld, err
		}
		return ld, fail("worker '%s' is not a ralph worker", name)
	}
	ld.Settled(settleWait)
	return ld, nil
}

// iterationRecords are what `ralph logs NAME --format json` prints: the loop's whole
// iteration records, oldest first.
func iterationRecords(e *env, name string) ([]json.RawMessage, error) {
	ld, err := settledLoopDir(e, name)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(ld.IterationsJSONL())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fail("%w", err)
	}
	records := []json.RawMessage{}
	for _, line := range strings.Split(string(data), "\n") {
		if isRecordLine(line) {
			records = append(records, json.RawMessage(line))
		}
	}
	return records, nil
}

// settleWait bounds how long ralph logs waits for a decision being recorded: the loop lock is
// held that long only by a writer that is stuck, and the logs are read all the same then.
const settleWait = 2 * time.Second

// eventStart is how every iterations.log entry begins (see ralph.Dir.LogEvent).
var eventStart = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d`)

// isEventLine tells an entry from the remains of one torn by a writer that died mid-line
// before it wrote the entry's time (the next entry then starts on a line of its own, see
// state.Log); an entry torn after its time is shown marked (isTornEntry).
func isEventLine(line string) bool { return eventStart.MatchString(line) }

// isTornEntry tells a line of iterations.log or monitor.log closed as torn by the next writer
// (see state.TornMark).
func isTornEntry(line string) bool {
	return strings.HasSuffix(strings.TrimRight(line, "\n"), state.TornMark)
}

// isRecordLine tells a whole iterations.jsonl record from a torn one.
func isRecordLine(line string) bool {
	var r ralph.IterationRecord
	return json.Unmarshal([]byte(line), &r) == nil && r.Iteration > 0
}

// tail prints a log file (the last lines when lines > 0) and, with follow, what is appended
// while more says the writer is still at it. Only whole lines are printed.
type tail struct {
	path   string
	lines  int
	follow bool
	more   func() bool
	whole  func(line string) bool   // nil: every line is; otherwise the others are skipped
	show   func(line string) string // how a line is shown (nil: as it is)
	// torn tells an entry cut short that is still shown (marked), with a warning; nil: none is.
	torn func(line string) bool

	f       *os.File
	pending string // the start of a line still being written
}

func (t *tail) run(e *env) error {
	defer func() {
		if t.f != nil {
			t.f.Close()
		}
	}()
	first, err := t.open()
	switch {
	case err == nil:
	case !errors.Is(err, os.ErrNotExist):
		return fail("%w", err)
	case !t.follow:
		return nil
	}
	t.print(e, t.split(first), t.lines)
	for t.follow {
		keep := t.more()
		time.Sleep(200 * time.Millisecond)
		t.print(e, t.read(), 0)
		if !keep {
			break
		}
	}
	return nil
}

// open opens the log and returns what it holds so far: the rotated part first (see
// state.Log), then the log itself, which is kept open to follow.
func (t *tail) open() ([]byte, error) {
	for try := 1; ; try++ {
		f, err := os.Open(t.path)
		if err != nil {
			if older, rerr := os.ReadFile(state.Rotated(t.path)); rerr == nil {
				return older, nil
			}
			return nil, err
		}
		older, _ := os.ReadFile(state.Rotated(t.path))
		if rotatedSince(f, t.path) && try < 3 {
			f.Close() // rotated between the two opens: what was read is now the older part
			continue
		}
		t.f = f
		data, _ := io.ReadAll(f)
		return append(older, data...), nil
	}
}

// read returns the whole lines appended since the last read, following the log when it is
// rotated (the rest of the old file first, then the new one).
func (t *tail) read() []string {
	if t.f == nil {
		f, err := os.Open(t.path)
		if err != nil {
			return nil
		}
		t.f = f
	}
	data, _ := io.ReadAll(t.f)
	if rotatedSince(t.f, t.path) {
		if f, err := os.Open(t.path); err == nil {
			t.f.Close()
			t.f = f
			more, _ := io.ReadAll(f)
			data = append(data, more...)
		}
	}
	return t.split(data)
}

// split cuts what was read into whole lines, keeping the start of one still being written.
func (t *tail) split(data []byte) []string {
	lines := strings.SplitAfter(t.pending+string(data), "\n")
	t.pending = lines[len(lines)-1]
	return lines[:len(lines)-1]
}

// rotatedSince reports whether the file open as f is no longer the one at path.
func rotatedSince(f *os.File, path string) bool {
	open, err := f.Stat()
	if err != nil {
		return false
	}
	named, err := os.Stat(path)
	return err == nil && !os.SameFile(open, named)
}

// print writes the last n (all when n <= 0) of lines that are whole, and warns about the
// torn ones among them.
func (t *tail) print(e *env, lines []string, n int) {
	var keep []string
	for i := len(lines) - 1; i >= 0 && (n <= 0 || len(keep) < n); i-- {
		if t.whole != nil && !t.whole(lines[i]) {
			e.warnf("skipped a torn line in %s", filepath.Base(t.path))
			continue
		}
		if t.torn != nil && t.torn(lines[i]) {
			e.warnf("an entry of %s was cut short (its writer stopped mid-line); it is shown marked%s", filepath.Base(t.path), state.TornMark)
		}
		keep = append(keep, lines[i])
	}
	var b strings.Builder
	for i := len(keep) - 1; i >= 0; i-- {
		line := keep[i]
		if t.show != nil {
			line = t.show(strings.TrimSuffix(line, "\n")) + "\n"
		}
		b.WriteString(line)
	}
	fmt.Fprint(e.stdout, b.String())
}
