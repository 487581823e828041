package driver

import (
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

// drawingScreen is the driver as the signals feature meets it when the agent draws an API
// error some time after its turn's end: the screens it shows, one per capture, the last kept.
type drawingScreen struct {
	fakeDriver
	now      time.Time
	screens  [][]string
	captures int
}

func (f *drawingScreen) clock() Clock       { return fixedClock{&f.now} }
func (f *drawingScreen) alive(pid int) bool { return true }
func (f *drawingScreen) capture(a agent, history int) ([]string, error) {
	f.captures++
	return f.screens[min(f.captures, len(f.screens))-1], nil
}

var geminiErrorScreen = []string{" > do the work", "", `✕ [API Error: {"error":{"code":400}}]`, "",
	"────────────────────", " *   Type your message or @path/to/file", ""}

// Gemini CLI's hook runs while the error of a turn with no answer is being drawn: the screen is
// given ralph.ErrorDrawWait to show it; a turn with an answer is judged by the screen at once.
func TestAnErrorIsGivenTimeToBeDrawn(t *testing.T) {
	blank := []string{" > do the work", "", "", "────────────────────", " *   Type your message or @path/to/file", ""}
	f := &drawingScreen{now: time.Unix(1e9, 0), screens: [][]string{blank, blank, blank, geminiErrorScreen}}
	sg := &signalWatch{drv: f}
	if !sg.errorShown(agent{}, true) || f.captures != 4 || f.now.Sub(time.Unix(1e9, 0)) != 3*errorDrawPoll {
		t.Errorf("drawn late: %d captures, %s", f.captures, f.now.Sub(time.Unix(1e9, 0)))
	}
	f = &drawingScreen{now: time.Unix(1e9, 0), screens: [][]string{blank}}
	sg = &signalWatch{drv: f}
	if sg.errorShown(agent{}, true) || f.now.Sub(time.Unix(1e9, 0)) < ralph.ErrorDrawWait {
		t.Errorf("never drawn: shown, or given only %s", f.now.Sub(time.Unix(1e9, 0)))
	}
	f = &drawingScreen{now: time.Unix(1e9, 0), screens: [][]string{blank, geminiErrorScreen}}
	sg = &signalWatch{drv: f}
	if sg.errorShown(agent{}, false) || f.captures != 1 {
		t.Errorf("a turn with an answer waited: %d captures", f.captures)
	}
}
