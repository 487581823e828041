package swarm

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/acarl005/stripansi"

	"github.com/swarm-dev/swarm/state"
)

// Following a worker's output as it grows: the pane of a tmux worker, the log file of a
// process worker.

// followPane prints lines as they are added to the pane. A line is printed once a later line
// exists (the last line may still be being typed), and everything left when the pane dies.
func followPane(e *env, w *state.Worker, history int) error {
	printed := 0
	first := true
	for {
		// Whether it ended is asked first: a screen captured after that holds all it printed.
		p, perr := e.tmuxFor(w).Pane(w.Tmux.PaneID)
		dead := perr != nil || p.Dead
		out, err := e.tmuxFor(w).Capture(w.Tmux.PaneID, history)
		if err != nil {
			return nil
		}
		lines := trimBlankTail(splitLines(out))
		if first {
			// What was already on screen has been printed by the caller.
			printed = len(lines)
			first = false
		}
		limit := len(lines) - 1
		if dead {
			limit = len(lines)
		}
		if printed > len(lines) {
			printed = len(lines)
		}
		for ; printed < limit; printed++ {
			fmt.Fprintln(e.stdout, lines[printed])
		}
		if dead {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// followFile prints a process worker's log as it grows, until the worker stops.
func followFile(e *env, w *state.Worker, stream string, n int) error {
	path := e.dir.LogPath(w.Name, stream)
	f, err := os.Open(path)
	if err != nil {
		return fail("no log for worker '%s': %v", w.Name, err)
	}
	defer f.Close()
	tailFile(e.stdout, f, n, true, func() bool {
		cur, _, err := e.loadWorker(w.Name)
		return err != nil || cur.Status != state.StatusRunning
	})
	return nil
}

// tailFile prints the last n lines of f and, when follow, the lines added to it (each once it
// is complete) until over says so; whatever was written before then is printed as well.
func tailFile(out io.Writer, f *os.File, n int, follow bool, over func() bool) {
	data, _ := io.ReadAll(f)
	for _, l := range lastN(splitLines(string(data)), n) {
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
