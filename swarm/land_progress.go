package swarm

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/testrun"
	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/swarm/land"
)

// landShow shows a landing run as it goes. On a terminal the step under way is one line
// rewritten in place (the test command's clock ticking), the results scrolling above it;
// elsewhere each step is a plain line; with --format json each step and each worker's result
// is one JSON object on a line of its own (NDJSON), so a script reads them as they come.
type landShow struct {
	mu     sync.Mutex
	out    io.Writer
	errOut io.Writer
	json   bool
	live   bool
	width  int
	now    func() time.Time
	step   *land.Event // the step under way, on the live line
	shown  bool        // the live line is on the screen
	stop   chan struct{}
	done   chan struct{}
}

func newLandShow(e *env, format string) *landShow {
	s := &landShow{out: e.stdout, errOut: e.stderr, json: format == "json", now: time.Now}
	if !s.json && writesToTerminal(e.stdout) {
		s.live, s.width = true, onceWidth()
		s.stop, s.done = make(chan struct{}), make(chan struct{})
		go s.tick()
	}
	return s
}

// tick redraws the live line every second, so the clock of a long test run moves.
func (s *landShow) tick() {
	defer close(s.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.mu.Lock()
			s.draw()
			s.mu.Unlock()
		}
	}
}

// event is land's Progress: a step of a landing as it starts.
func (s *landShow) event(ev land.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.json:
		s.emit(landEventJSON(ev))
	case s.live:
		s.step = &ev
		s.draw()
	default:
		fmt.Fprintln(s.out, stepText(ev, 0))
	}
}

// draw rewrites the live line: the step under way and, for a test run, how long it has run.
func (s *landShow) draw() {
	if s.step == nil {
		return
	}
	text := stepText(*s.step, s.now().Sub(s.step.Time))
	fmt.Fprint(s.out, "\r\x1b[K"+ansi.Truncate(text, max(s.width-1, 10), "…"))
	s.shown = true
}

// clear takes the live line off the screen, so a line printed next starts on a clean one.
func (s *landShow) clear() {
	if s.shown {
		fmt.Fprint(s.out, "\r\x1b[K")
		s.shown = false
	}
}

// result shows a worker's outcome: its lines (text), or its record as a result event (JSON).
func (s *landShow) result(r landResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.step = nil
	s.clear()
	if r.Error != "" {
		fmt.Fprintf(s.errOut, "swarm: error: %s\n", r.Error)
	}
	if s.json {
		s.emit(landResultEvent{Event: "result", Time: s.now().UTC().Format(time.RFC3339), landResult: r})
		return
	}
	if r.Error == "" || r.State == land.Landed {
		printLandResult(s.out, r)
	}
	if r.SendBack != "" {
		fmt.Fprintf(s.out, "%s: %s\n", r.Worker, r.SendBack)
	}
}

// line prints a line of text output above the live line.
func (s *landShow) line(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clear()
	fmt.Fprintln(s.out, text)
}

func (s *landShow) emit(v any) {
	data, err := json.Marshal(v)
	if err == nil {
		fmt.Fprintln(s.out, string(data))
	}
}

// close stops the clock and takes the live line away.
func (s *landShow) close() {
	if s.live {
		close(s.stop)
		<-s.done
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clear()
}

// stepText says a step in a line: "w1: testing: make test (1m 12s)"; elapsed is how long it
// has been under way (0: not said).
func stepText(ev land.Event, elapsed time.Duration) string {
	cmd := land.Printable(words.OneLine(ev.Command))
	var s string
	switch ev.Step {
	case land.StepMerging:
		s = fmt.Sprintf("merging %s onto %s", ev.Branch, ev.Target)
	case land.StepTesting:
		s = "testing: " + cmd
		if elapsed > 0 {
			s += " (" + words.Duration(elapsed) + ")"
		}
	case land.StepTested:
		s = fmt.Sprintf("%s after %s", ev.Outcome, words.Duration(ev.Elapsed))
		if ev.Outcome == "passed" {
			s = "tests passed in " + words.Duration(ev.Elapsed)
		}
	case land.StepMoving:
		s = fmt.Sprintf("moving %s to %s", ev.Target, ralph.ShortCommit(ev.Commit))
	case land.StepPushing:
		s = fmt.Sprintf("pushing %s to %s", ralph.ShortCommit(ev.Commit), ev.Target)
	default:
		s = ev.Step
	}
	return ev.Worker + ": " + s
}

// landEvent is a step of a landing as --format json prints it.
type landEvent struct {
	Event   string `json:"event"`
	Worker  string `json:"worker"`
	Branch  string `json:"branch"`
	Target  string `json:"target"`
	Time    string `json:"time"`
	Command string `json:"command,omitempty"`
	Commit  string `json:"commit,omitempty"`
	// ElapsedSeconds is how long the test command ran (tested).
	ElapsedSeconds *float64 `json:"elapsed_seconds,omitempty"`
	Outcome        string   `json:"outcome,omitempty"`
}

func landEventJSON(ev land.Event) landEvent {
	j := landEvent{Event: ev.Step, Worker: ev.Worker, Branch: ev.Branch, Target: ev.Target,
		Time: ev.Time.UTC().Format(time.RFC3339), Command: ev.Command, Commit: ev.Commit, Outcome: ev.Outcome}
	if ev.Step == land.StepTested {
		secs := ev.Elapsed.Seconds()
		j.ElapsedSeconds = &secs
	}
	return j
}

// landResultEvent is a worker's outcome as --format json prints it: the fields of its record
// (and skipped, dry_run, send_back, error) beside "event": "result".
type landResultEvent struct {
	Event string `json:"event"`
	Time  string `json:"time"`
	landResult
}

// outputNote says how much a test run printed when its output was cut: ", 400 MiB in all,
// cut to its first 8 KiB and last 1 MiB".
func outputNote(r *land.Record) string {
	if !r.OutputCut {
		return ""
	}
	return fmt.Sprintf(", %s in all, cut to its first %s and last %s", testrun.Size(r.OutputSize),
		testrun.Size(testrun.HeadSize), testrun.Size(testrun.TailSize))
}
