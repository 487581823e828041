package ralph

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/state/eventlog"
)

func TestChangeEvents(t *testing.T) {
	running := State{Status: StatusRunning, RunID: "r1", CurrentIteration: 3}
	with := func(edit func(*State)) State {
		s := running
		edit(&s)
		return s
	}
	until := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		name     string
		was, now State
		dec      Decision
		want     []eventlog.Event
	}{
		{"nothing of note", running, with(func(s *State) { s.LastScreenChange = "now" }), Decision{}, nil},
		{"paused", running, with(func(s *State) { s.Status, s.ExitReason = StatusPaused, "paused" }), Decision{},
			[]eventlog.Event{{Kind: eventlog.LoopPaused, Reason: "paused"}}},
		{"parked", running, with(func(s *State) {
			s.Status, s.WaitingUntil, s.WaitingFor = StatusWaiting, until.Format(TimeFormat), "limit reached"
		}), Decision{}, []eventlog.Event{{Kind: eventlog.LoopParked, Reason: "limit reached", Detail: "until " + until.Format(TimeFormat)}}},
		{"unparked at the reset", with(func(s *State) { s.Status = StatusWaiting }), running, LimitOver(),
			[]eventlog.Event{{Kind: eventlog.LoopUnparked}}},
		{"resumed before the reset", with(func(s *State) { s.Status = StatusWaiting }), running, Decision{Unpause: true},
			[]eventlog.Event{{Kind: eventlog.LoopResumed, Reason: "waiting"}}},
		{"resumed after failing", with(func(s *State) { s.Status = StatusFailed }), running, Decision{Unpause: true},
			[]eventlog.Event{{Kind: eventlog.LoopResumed, Reason: "failed"}}},
		{"done", running, with(func(s *State) { s.Status, s.ExitReason = StatusStopped, "complete" }), Decision{Ended: true},
			[]eventlog.Event{{Kind: eventlog.LoopDone, Reason: "complete"}}},
		{"killed", running, with(func(s *State) { s.Status, s.ExitReason = StatusStopped, "killed" }), Decision{Ended: true},
			[]eventlog.Event{{Kind: eventlog.LoopStopped, Reason: "killed"}}},
		{"failed", running, with(func(s *State) { s.Status, s.ExitReason = StatusFailed, "consecutive_failures" }), Decision{Ended: true},
			[]eventlog.Event{{Kind: eventlog.LoopFailed, Reason: "consecutive_failures"}}},
		{"a chain's next step is no resume", with(func(s *State) { s.Status = StatusStopped }),
			with(func(s *State) { s.RunID, s.CurrentIteration = "r2", 0 }), Decision{}, nil},
		{"a person needed", running, with(func(s *State) { s.WaitsForPermission("Bash(rm -rf build)", until) }), Decision{},
			[]eventlog.Event{{Kind: eventlog.PersonNeeded, What: NeedPermission, Detail: "Bash(rm -rf build)"}}},
		{"a need already told", with(func(s *State) { s.WaitsAtDialog("trust-folder", until) }),
			with(func(s *State) { s.WaitsAtDialog("trust-folder", until.Add(time.Minute)) }), Decision{}, nil},
		{"answered: the agent went on", with(func(s *State) { s.WaitsAtDialog("trust-folder", until) }), running, Decision{},
			[]eventlog.Event{{Kind: eventlog.PersonAnswered, What: NeedDialog, Detail: "trust-folder", By: "agent"}}},
		{"ended by a pause", with(func(s *State) { s.WaitsAtDialog("trust-folder", until) }),
			with(func(s *State) { s.Status, s.ExitReason, s.BlockedBy = StatusPaused, "paused", "trust-folder" }), Decision{PausedNow: true},
			[]eventlog.Event{{Kind: eventlog.LoopPaused, Reason: "paused"},
				{Kind: eventlog.PersonAnswered, What: NeedDialog, Detail: "trust-folder", By: "swarm"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ChangeEvents(&c.was, &c.now, c.dec); !reflect.DeepEqual(got, c.want) {
				t.Errorf("ChangeEvents = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestTheBudgetIsToldOnceCrossed(t *testing.T) {
	st := func(spent float64) *State { return &State{Status: StatusRunning, MaxCost: 5, CostUSD: spent} }
	got := ChangeEvents(st(4.5), st(5.25), Decision{})
	if len(got) != 1 || got[0].Kind != eventlog.CostBudget || got[0].CostUSD == nil || *got[0].CostUSD != 5.25 {
		t.Errorf("crossing: %+v, want one cost.budget of $5.25", got)
	}
	if got := ChangeEvents(st(5.25), st(6), Decision{}); got != nil {
		t.Errorf("past it already: %+v, want nothing", got)
	}
	if got := ChangeEvents(&State{Status: StatusRunning, CostUSD: 6}, &State{Status: StatusRunning, CostUSD: 7}, Decision{}); got != nil {
		t.Errorf("no budget: %+v, want nothing", got)
	}
}

func TestIterationEnded(t *testing.T) {
	one := 1
	zero := 0
	for _, c := range []struct {
		rec          IterationRecord
		dec          Decision
		how, reason  string
		detailWanted string
	}{
		{IterationRecord{EndReason: "exit", ExitCode: &one}, Decision{Failed: &Failure{Exit: "1", Lines: []string{"Error: no API key"}}},
			HowFailed, "exit 1", "Error: no API key"},
		{IterationRecord{EndReason: "exit", ExitCode: &zero}, Decision{}, HowEnded, "exit 0", ""},
		{IterationRecord{EndReason: "done"}, Decision{Ended: true, ExitReason: "done_pattern"}, HowDone, "done_pattern", ""},
		{IterationRecord{EndReason: "exit", ExitCode: &zero}, Decision{Ended: true, ExitReason: "complete"}, HowDone, "complete", ""},
		{IterationRecord{EndReason: "exit", ExitCode: &zero}, Decision{Ended: true, ExitReason: "max_iterations"}, HowEnded, "exit 0", ""},
		{IterationRecord{EndReason: "hang"}, Decision{Failed: &Failure{Exit: "hung"}}, HowHang, "", ""},
		{IterationRecord{EndReason: "iteration_timeout"}, Decision{Failed: &Failure{Exit: "iteration timeout"}}, HowTimeout, "iteration_timeout", ""},
		{IterationRecord{EndReason: "ready_timeout"}, Decision{Failed: &Failure{Exit: "ready timeout"}}, HowTimeout, "ready_timeout", ""},
		{IterationRecord{EndReason: "api_error", Error: "529 overloaded"}, Decision{Failed: &Failure{Exit: "api_error"}}, HowAPIError, "529 overloaded", ""},
		{IterationRecord{EndReason: "usage_limit", Error: "limit reached"}, Decision{}, HowLimit, "limit reached", ""},
		{IterationRecord{EndReason: "budget_exceeded"}, Decision{Ended: true, ExitReason: "budget_exceeded"}, HowStopped, "budget_exceeded", ""},
		{IterationRecord{EndReason: "stopped"}, Decision{ExitReason: "killed"}, HowKilled, "", ""},
		{IterationRecord{EndReason: "stopped"}, Decision{ExitReason: "stopped"}, HowStopped, "stopped", ""},
		{IterationRecord{EndReason: "inactivity"}, Decision{}, HowEnded, "inactivity", ""},
	} {
		c.rec.Iteration = 4
		e := IterationEnded(c.rec, c.dec)
		if e.Kind != eventlog.IterationEnded || e.Iteration != 4 || e.How != c.how || e.Reason != c.reason || e.Detail != c.detailWanted {
			t.Errorf("IterationEnded(%+v, %+v) = %+v, want how %q, reason %q, detail %q", c.rec, c.dec, e, c.how, c.reason, c.detailWanted)
		}
	}
}

// loopDir is a loop directory in a state directory of its own, as DirFor makes it.
func loopDir(t *testing.T) (Dir, eventlog.Log) {
	t.Helper()
	sd, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := DirFor(sd, "w1")
	if err := d.Create(&State{WorkerName: "w1", Status: StatusRunning, RunID: "r1", CurrentIteration: 2}); err != nil {
		t.Fatal(err)
	}
	return d, eventlog.Log{Root: sd.Root}
}

func TestAChangeIsToldOnceWhereItIsRecorded(t *testing.T) {
	d, log := loopDir(t)
	now := time.Now()
	for range 3 {
		// Seen at every look; needed once.
		if _, err := d.Update(func(s *State) error { s.WaitsAtDialog("trust-folder", now); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := d.Transition(now, func(s *State) (Decision, error) { return Pause(s, "paused by user", "paused") }); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Transition(now, func(s *State) (Decision, error) { return Pause(s, "paused by user", "paused") }); err == nil {
		t.Fatal("a second pause was taken")
	}
	all, err := log.Since(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range all {
		if e.Worker != "w1" || e.Iteration != 2 {
			t.Errorf("event %+v: want worker w1, iteration 2", e)
		}
		got = append(got, e.Kind+" "+e.By)
	}
	want := []string{"person.needed ", "loop.paused ", "person.answered swarm"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}

func TestAKillRecordedLaterIsToldThen(t *testing.T) {
	d, log := loopDir(t)
	if err := d.MarkKilled(); err != nil {
		t.Fatal(err)
	}
	// Read, it is killed already; recorded by the next writer, it is told once.
	if st, err := d.Load(); err != nil || st.ExitReason != "killed" {
		t.Fatalf("Load = %+v, %v", st, err)
	}
	for range 2 {
		if _, err := d.Update(func(*State) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := log.Since(0, 0)
	if len(all) != 1 || all[0].Kind != eventlog.LoopStopped || all[0].Reason != "killed" {
		t.Errorf("events %+v, want the kill once", all)
	}
}

func TestALoopDirectoryOnItsOwnTellsNothing(t *testing.T) {
	dir := t.TempDir()
	d := Dir{Path: filepath.Join(dir, "w1")}
	if err := d.Create(&State{Status: StatusRunning}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Transition(time.Now(), func(s *State) (Decision, error) { return Pause(s, "paused by user", "paused") }); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "events.jsonl"), filepath.Join(d.Path, "events.jsonl")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s written (%v)", p, err)
		}
	}
}

func TestAPersonsAnswerIsToldOnceAsTheirs(t *testing.T) {
	d, log := loopDir(t)
	now := time.Now()
	if _, err := d.Update(func(s *State) error {
		s.WaitsForPermission("Claude needs your permission to use Bash(make)", now)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	answered := false
	if _, err := d.Update(func(s *State) error { answered = s.PermissionAnsweredBy("web", "no"); return nil }); err != nil || !answered {
		t.Fatalf("answered %v: %v", answered, err)
	}
	if _, err := d.Update(func(s *State) error { answered = s.PermissionAnsweredBy("cli", "yes"); return nil }); err != nil || answered {
		t.Fatalf("answered twice: %v", err)
	}
	all, err := log.Since(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[1].Kind != "person.answered" || all[1].By != "web" || all[1].What != "permission" ||
		all[1].Detail != "no: Bash(make)" {
		t.Fatalf("events %+v", all)
	}
	if st, _ := d.Load(); st.NeedsPermission != "" || st.NeedsPersonSince != "" {
		t.Fatalf("still needs a person: %+v", st)
	}
}
