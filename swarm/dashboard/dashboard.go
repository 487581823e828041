package dashboard

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/swarm-dev/swarm/ralph/screen"
)

// Options are what the dashboard starts with.
type Options struct {
	Filter   string        // show only the rows with this text (see matches)
	Sort     Sort          // the rows' order, until o turns it
	Interval time.Duration // how often the live view reads the workers again
	Color    bool          // draw in colour
	Width    int           // the width of a frame printed once; the live view takes the terminal's
}

// Run shows the live dashboard on the terminal until it is quit.
func Run(data Data, o Options) error {
	m := newModel(data, newStyles(o.Color), o.Interval)
	m.view.Filter, m.view.Sort = o.Filter, o.Sort
	_, err := tea.NewProgram(m).Run()
	return err
}

// How much of the first worker a frame printed once shows.
const onceScreenLines, onceEventLines = 10, 5

// RenderOnce is one frame as tall as its content, the first worker selected, for scripts.
func RenderOnce(data Data, o Options) string {
	v := frame{Snap: data.Snapshot(), Width: o.Width, Filter: o.Filter, Sort: o.Sort}
	v.Rows = shownRows(v.Snap.Rows, o.Filter, o.Sort)
	if len(v.Rows) > 0 {
		v.Screen = screen.TrimBlankTail(data.Screen(v.Rows[0], onceScreenLines, false))
		v.Events = data.Events(v.Rows[0], onceEventLines)
	}
	return render(v, newStyles(o.Color))
}
