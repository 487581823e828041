package driver

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
)

// dangerDriver is the driver as the refusal meets it: the loop's directory, a clock, a
// screen, the keys pressed and the state updated.
type dangerDriver struct {
	signalDriver
	now     time.Time
	lines   []string
	pressed []string
	state   ralph.State
	said    []string
}

func (f *dangerDriver) clock() Clock { return fixedClock{&f.now} }
func (f *dangerDriver) capture(a agent, history int) ([]string, error) {
	return f.lines, nil
}
func (f *dangerDriver) pressKeys(a agent, keys ...string) error {
	f.pressed = append(f.pressed, keys...)
	return nil
}
func (f *dangerDriver) update(fn func(*ralph.State) error)    { _ = fn(&f.state) }
func (f *dangerDriver) say(format string, args ...any)        { f.said = append(f.said, format) }
func (f *dangerDriver) screenKind(lines []string) screen.Kind { return screen.Dialog }

var dangerousEvent = ralph.AgentEvent{Event: ralph.EventPermissionRequest, Mode: ralph.ModeBypass,
	Message: "Claude needs your permission to use Bash(rm -rf $(cat x))"}

// A request swarm's hook holds is refused through its answer file, the answer the loop's own.
func TestDangerousRefusedThroughTheHook(t *testing.T) {
	now := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	f := &dangerDriver{signalDriver: signalDriver{d: ralph.Dir{Path: t.TempDir()}}, now: now}
	box := f.d.AgentBox()
	_ = os.MkdirAll(box, 0o700)
	req, _ := json.Marshal(ralph.PermissionRequest{ID: "0123456789abcdef", What: "Bash(rm -rf $(cat x))",
		Until: now.Add(time.Minute).Format(time.RFC3339Nano)})
	write(t, ralph.PermissionRequestPath(box, "0123456789abcdef"), string(req))
	f.state.WaitsForPermission(ralph.DangerousWhat(dangerousEvent), now)
	sg := &signalWatch{drv: f}
	if !sg.refuseDangerous(&ralph.State{CurrentIteration: 1}, agent{}, dangerousEvent) {
		t.Fatal("not refused")
	}
	data, _ := os.ReadFile(ralph.PermissionAnswerPath(box, "0123456789abcdef"))
	if a, err := ralph.ParseAnswer(data); err != nil || a.Answer != ralph.AnswerNo || a.By != ralph.AnsweredBySwarm {
		t.Errorf("answer file: %+v %v", a, err)
	}
	if f.state.NeedsPermission != "" || len(f.pressed) > 0 {
		t.Errorf("need left %q, keys %v", f.state.NeedsPermission, f.pressed)
	}
}

// Without a held request, the dialog on screen is refused by its keys; with neither, nothing
// is done and the person is left to answer.
func TestDangerousRefusedByKeysOrLeft(t *testing.T) {
	dialog, err := os.ReadFile("../screen/testdata/screens/claude-2.1.332/33_dangerous_rm_bypass.txt")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	f := &dangerDriver{signalDriver: signalDriver{d: ralph.Dir{Path: t.TempDir()}}, now: now, lines: strings.Split(string(dialog), "\n")}
	f.state.WaitsForPermission(ralph.DangerousWhat(dangerousEvent), now)
	sg := &signalWatch{drv: f}
	if !sg.refuseDangerous(&ralph.State{}, agent{}, dangerousEvent) || len(f.pressed) != 1 || f.pressed[0] != "Escape" {
		t.Fatalf("keys %v", f.pressed)
	}
	f = &dangerDriver{signalDriver: signalDriver{d: ralph.Dir{Path: t.TempDir()}}, now: now, lines: []string{"❯ ", ""}}
	f.state.WaitsForPermission(ralph.DangerousWhat(dangerousEvent), now)
	sg = &signalWatch{drv: f}
	if sg.refuseDangerous(&ralph.State{}, agent{}, dangerousEvent) || f.state.NeedsPermission == "" {
		t.Errorf("refused with nothing to refuse: keys %v", f.pressed)
	}
}
