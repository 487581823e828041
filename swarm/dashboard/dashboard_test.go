package dashboard

import (
	"strings"
	"testing"
)

// screenData is fakeData with a screen of its own, and what the dashboard asked of it.
type screenData struct {
	*fakeData
	screen            []string
	screenN, eventsN  int
	screenFor, logsOf string
}

func (d *screenData) Screen(r Row, n int, logs bool) []string {
	d.screenN, d.screenFor = n, r.Name
	return d.screen
}

func (d *screenData) Events(r Row, n int) []string {
	d.eventsN = n
	return d.fakeData.Events(r, n)
}

// A frame printed once is as tall as its content: the first row shown selected, its screen
// without the terminal's empty rows at the bottom, its loop's last events.
func TestDashboardRenderOnce(t *testing.T) {
	data := &screenData{fakeData: &fakeData{rows: testRows()}, screen: []string{"$ make", "ok", "", "\u00a0", ""}}
	got := RenderOnce(data, Options{Filter: "loop", Sort: sortName, Width: 80})
	want := strings.Join([]string{
		"swarm · 3 workers · 1 working · 1 idle · 1 done                         20:00:00",
		"  NAME     KIND  STATE                      ITER    CHANGED   FAIL COST",
		"▸ builder  loop  working                    3/20    -         0    -",
		"── builder · screen " + strings.Repeat("─", 60),
		" $ make",
		" ok",
		"── builder · events " + strings.Repeat("─", 60),
		" events of builder",
		"sort: name · filter: loop (esc clears) · ? help · q quit · enter attach · p/r p…",
	}, "\n")
	if got != want {
		t.Errorf("frame:\n%s\nwant:\n%s", got, want)
	}
	if data.screenFor != "builder" || data.screenN != onceScreenLines || data.eventsN != onceEventLines {
		t.Errorf("asked for %d lines of %s's screen and %d events", data.screenN, data.screenFor, data.eventsN)
	}
	if got := RenderOnce(data, Options{Filter: "nobody", Width: 60, Color: true}); !strings.Contains(got, "no worker matches 'nobody'") ||
		!strings.Contains(got, "\x1b[") {
		t.Errorf("a frame in colour without rows:\n%s", got)
	}
}
