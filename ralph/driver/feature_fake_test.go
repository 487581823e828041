package driver

import (
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
)

// fakeDriver stands in for the driver in a feature's tests: it records what the feature asked
// of it. A service a test does not expect to be used is left to the nil interface (a call
// panics).
type fakeDriver struct {
	services
	kind   screen.Kind
	events []string
	ended  []ralph.Ending
}

func (f *fakeDriver) logEvent(kind, text string) { f.events = append(f.events, kind+" "+text) }
func (f *fakeDriver) endIteration(st *ralph.State, a agent, kind ralph.Ending) {
	f.ended = append(f.ended, kind)
}
func (f *fakeDriver) screenKind(lines []string) screen.Kind { return f.kind }
func (f *fakeDriver) transition(*ralph.State, agent, ralph.Decision) *ralph.State {
	panic("no decision expected")
}
func (f *fakeDriver) updateSupervision(func(*ralph.SupervisionState)) {
	panic("no supervision expected")
}
func (f *fakeDriver) say(format string, args ...any)                 { panic("nothing to say expected") }
func (f *fakeDriver) worker() (*state.Worker, error)                 { panic("no worker expected") }
func (f *fakeDriver) removeDoneFile(why string)                      { panic("no DONE file to remove") }
func (f *fakeDriver) capture(a agent, history int) ([]string, error) { panic("no capture expected") }

var apiErrorScreen = []string{"❯ do the work", "", "⏺ API Error: 529 Overloaded", ""}

func TestAPIErrorsEndAnIterationWaitingAtTheError(t *testing.T) {
	f := &fakeDriver{kind: screen.Ready}
	ae := &apiErrors{drv: f}
	st := &ralph.State{CurrentIteration: 3}
	if !ae.screenLook(st, agent{}, apiErrorScreen) {
		t.Fatal("an API error at the prompt did not end the iteration")
	}
	if len(f.ended) != 1 || f.ended[0] != ralph.EndAPIError {
		t.Errorf("endings %v, want one %v", f.ended, ralph.EndAPIError)
	}
	if want := "API_ERROR iteration 3 API Error: 529 Overloaded"; len(f.events) != 1 || f.events[0] != want {
		t.Errorf("events %q, want %q", f.events, want)
	}
	rec := ralph.IterationRecord{}
	ae.iterationEnded(&iterationEnd{st: st, kind: ralph.EndAPIError, rec: &rec})
	if rec.Error != "API Error: 529 Overloaded" {
		t.Errorf("record's error %q", rec.Error)
	}
	other := ralph.IterationRecord{}
	ae.iterationEnded(&iterationEnd{st: st, kind: ralph.EndExited, rec: &other})
	if other.Error != "" {
		t.Errorf("an iteration that ended otherwise has the error %q in its record", other.Error)
	}
}

func TestAPIErrorsLeaveABusyAgentAlone(t *testing.T) {
	f := &fakeDriver{kind: screen.Busy}
	if (&apiErrors{drv: f}).screenLook(&ralph.State{}, agent{}, apiErrorScreen) || len(f.ended)+len(f.events) > 0 {
		t.Errorf("a busy agent's API error (it retries) ended the iteration: %v %v", f.ended, f.events)
	}
}

func TestEndStepsAreCarriedOutByTheirFeatureOnly(t *testing.T) {
	f := &fakeDriver{}
	r := &endStepRun{st: &ralph.State{}, facts: &ralph.EndFacts{}}
	fs := features{&testGate{drv: f}, &checkers{drv: f}, &userHooks{drv: f}}
	if fs.endStep(ralph.EndDecide, r) {
		t.Error("a feature carried out the verdict's own step")
	}
	if (&testGate{drv: f}).endStep(ralph.EndCheck, r) || (&checkers{drv: f}).endStep(ralph.EndGate, r) {
		t.Error("a feature carried out another's step")
	}
}

func TestCheckersLeaveStopFilesAloneWithoutADoneFileOrCheckers(t *testing.T) {
	ck := &checkers{drv: &fakeDriver{}}
	for _, c := range []struct {
		m  ralph.Markers
		st ralph.State
	}{{ralph.Markers{}, ralph.State{Checks: []string{"file:x"}}}, {ralph.Markers{DoneFile: true}, ralph.State{}}} {
		m := c.m
		if ck.stopFiles(&c.st, &m) || m != c.m {
			t.Errorf("stopFiles(%+v, %+v) acted: markers now %+v", c.st.Checks, c.m, m)
		}
	}
}

func TestUserHooksRunNoneForALoopWithoutThem(t *testing.T) {
	h := &userHooks{drv: &fakeDriver{}}
	h.loopEnded(&ralph.State{Status: ralph.StatusStopped, ExitReason: "complete"})
	h.run(&ralph.State{}, config.HookPostIteration, 1, nil)
}

// errorWatcher is the driver as the API errors feature of an agent that names its errors
// meets it: a clock of its own and a screen to capture.
type errorWatcher struct {
	fakeDriver
	now    time.Time
	screen []string
}

func (f *errorWatcher) clock() Clock { return fixedClock{&f.now} }
func (f *errorWatcher) capture(a agent, history int) ([]string, error) {
	return f.screen, nil
}

type fixedClock struct{ now *time.Time }

func (c fixedClock) Now() time.Time        { return *c.now }
func (c fixedClock) Sleep(d time.Duration) { *c.now = c.now.Add(d) }

// An agent that names its API errors itself (its StopFailure hook) is given the time of a hook
// to do so: the error on its screen ends the iteration only once that is over, and only if
// the screen still shows it.
func TestAPIErrorsWaitForTheAgentsOwnWord(t *testing.T) {
	f := &errorWatcher{fakeDriver: fakeDriver{kind: screen.Ready}, now: time.Unix(1e9, 0), screen: apiErrorScreen}
	ae := &apiErrors{drv: f, ownWord: func(*ralph.State) bool { return true }}
	st := &ralph.State{CurrentIteration: 3}
	if ae.screenLook(st, agent{}, apiErrorScreen) || ae.agentLook(st, agent{}, nil) {
		t.Fatal("the error ended the iteration before the agent could name it")
	}
	if at, ok := ae.lookDue(st); !ok || !at.Equal(f.now.Add(ownWordWait)) {
		t.Errorf("look due %v %v, want one when the wait is over", at, ok)
	}
	f.now = f.now.Add(ownWordWait - time.Second)
	if ae.screenLook(st, agent{}, apiErrorScreen) || ae.agentLook(st, agent{}, nil) || len(f.ended) > 0 {
		t.Fatal("the error ended the iteration before the wait was over")
	}
	// Over, on a screen that no look captured since (a followed pane's still screen).
	f.now = f.now.Add(time.Second)
	if !ae.agentLook(st, agent{}, nil) || len(f.ended) != 1 || f.ended[0] != ralph.EndAPIError {
		t.Fatalf("the wait is over: endings %v", f.ended)
	}
	if want := "API_ERROR iteration 3 API Error: 529 Overloaded"; len(f.events) != 1 || f.events[0] != want {
		t.Errorf("events %q, want %q", f.events, want)
	}
	// The next agent's error waits anew; one the agent went on from is forgotten.
	ae.iterationEnding(st)
	if _, ok := ae.lookDue(st); ok {
		t.Error("a look is still due after the iteration ended")
	}
	ae.screenLook(st, agent{}, apiErrorScreen)
	f.now, f.screen = f.now.Add(ownWordWait), []string{"❯ ", "✻ Working… (esc to interrupt)"}
	f.kind = screen.Busy
	if ae.agentLook(st, agent{}, nil) || len(f.ended) != 1 {
		t.Errorf("an error the agent went on from ended the iteration: %v", f.ended)
	}
	if _, ok := ae.lookDue(st); ok {
		t.Error("an error the agent went on from is still awaited")
	}
}

// An agent that does not name its errors (no hooks of swarm's, or hooks that never ran) ends
// at the error at once, as ever.
func TestAPIErrorsOfAnAgentWithoutSignalsEndAtOnce(t *testing.T) {
	f := &errorWatcher{fakeDriver: fakeDriver{kind: screen.Ready}, now: time.Unix(1e9, 0)}
	ae := &apiErrors{drv: f, ownWord: func(*ralph.State) bool { return false }}
	if !ae.screenLook(&ralph.State{}, agent{}, apiErrorScreen) {
		t.Error("the error did not end the iteration")
	}
}
