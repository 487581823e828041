package swarm

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/acarl005/stripansi"

	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// Following a worker's output as it grows: the pane of a tmux worker, the log file of a
// process worker.

// followPane prints the last n lines of the pane, then its lines as they come and change. A
// line is printed once a later line exists (the last one may still be being typed), and
// everything left when the pane dies; a line printed before that changed since (a prompt the
// text arrived after) is printed again.
func followPane(e *env, w *state.Worker, history, n int) error {
	var prev []string
	printed := -1 // nothing looked at yet
	for {
		// Whether it ended is asked first: a screen captured after that holds all it printed.
		p, perr := e.TmuxFor(w).Pane(w.Tmux.PaneID)
		dead := perr != nil || p.Dead
		out, err := e.TmuxFor(w).Capture(w.Tmux.PaneID, history)
		if err != nil {
			return nil
		}
		lines := worker.PaneOutput(out)
		if printed < 0 {
			// What is on screen at first is printed as it is, the last line too.
			for _, l := range screen.LastN(lines, n) {
				fmt.Fprintln(e.stdout, l)
			}
			prev, printed = lines, len(lines)
		}
		var show []string
		show, printed = followStep(prev, lines, printed, dead)
		for _, l := range show {
			fmt.Fprintln(e.stdout, l)
		}
		prev = lines
		if dead {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// followStep compares the pane's lines now (cur) with those of the last look (prev), whose
// first printed lines were printed as they are, and returns the lines to print and how many of
// cur's first lines are then printed. Lines are compared by content, not counted: a printed
// line that changed is printed again with all below it, and when the scrollback is full and
// its oldest lines drop off, the rest moves up unchanged and is not printed twice.
func followStep(prev, cur []string, printed int, dead bool) ([]string, int) {
	printed = min(printed, len(prev))
	same := commonPrefix(prev[:printed], cur)
	if same < printed && same < printed/2 {
		if d, ok := scrolledBy(prev[:printed], cur); ok {
			prev, printed = prev[d:], printed-d
			same = commonPrefix(prev[:printed], cur)
		}
	}
	printed = same
	limit := len(cur) - 1
	if dead {
		limit = len(cur)
	}
	if printed >= limit {
		return nil, printed
	}
	return cur[printed:limit], limit
}

func commonPrefix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// scrolledBy finds how many lines dropped off the top of a full scrollback between two looks:
// the smallest d for which the printed lines, less their first d, begin cur. The last printed
// line is left out (it may have grown meanwhile), and only the last lines before it are
// compared: enough to tell a scroll from output that repeats.
func scrolledBy(printed, cur []string) (int, bool) {
	const maxDrop, checked = 5000, 200
	for d := 1; d+1 < len(printed) && d <= maxDrop; d++ {
		kept := printed[d : len(printed)-1]
		if len(kept) > len(cur) || cur[len(kept)-1] != kept[len(kept)-1] {
			continue
		}
		from := max(0, len(kept)-checked)
		if slices.Equal(kept[from:], cur[from:len(kept)]) {
			return d, true
		}
	}
	return 0, false
}

// followFile prints a process worker's log as it grows, until the worker stops.
func followFile(e *env, w *state.Worker, stream string, n int) error {
	path := e.Dir().LogPath(w.Name, stream)
	f, err := os.Open(path)
	if err != nil {
		return fail("no log for worker '%s': %w", w.Name, err)
	}
	defer f.Close()
	tailFile(e.stdout, f, n, true, func() bool {
		cur, _, err := e.Load(w.Name)
		return err != nil || cur.Status != state.StatusRunning
	})
	return nil
}

// tailFile prints the last n lines of f and, when follow, the lines added to it (each once it
// is complete) until over says so; whatever was written before then is printed as well.
func tailFile(out io.Writer, f *os.File, n int, follow bool, over func() bool) {
	data, _ := io.ReadAll(f)
	for _, l := range screen.LastN(worker.SplitLines(string(data)), n) {
		fmt.Fprintln(out, stripansi.Strip(l))
	}
	if !follow {
		return
	}
	r := bufio.NewReader(f)
	var partial bytes.Buffer
	for {
		chunk, err := r.ReadBytes('\n')
		partial.Write(chunk)
		if err == nil {
			fmt.Fprint(out, stripansi.Strip(partial.String()))
			partial.Reset()
			continue
		}
		if over() {
			// Drain what was written before the end.
			rest, _ := io.ReadAll(r)
			partial.Write(rest)
			if partial.Len() > 0 {
				s := stripansi.Strip(partial.String())
				if !strings.HasSuffix(s, "\n") {
					s += "\n"
				}
				fmt.Fprint(out, s)
			}
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}
