package ralph

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/swarm-dev/swarm/state"
)

// Where a loop keeps its files: one directory per worker, $SWARM_DIR/ralph/<name>/.

// Dir holds the files of one loop.
type Dir struct {
	Path string
}

// DirFor returns the loop directory of worker name under the swarm state root.
func DirFor(d *state.Dir, name string) Dir { return Dir{Path: d.RalphDir(name)} }

func (d Dir) StatePath() string { return filepath.Join(d.Path, "state.json") }
func (d Dir) lockPath() string  { return filepath.Join(d.Path, "lock") }

// MonitorLockPath is held by the loop's monitor for its whole life.
func (d Dir) MonitorLockPath() string { return filepath.Join(d.Path, "monitor.lock") }

// IterationsLog is the append-only log of iteration events.
func (d Dir) IterationsLog() string { return filepath.Join(d.Path, "iterations.log") }

// MonitorLog is where a detached monitor writes what it says.
func (d Dir) MonitorLog() string { return filepath.Join(d.Path, "monitor.log") }

// ScreenPath keeps the last screen of an iteration, for looking back at what happened.
func (d Dir) ScreenPath(iteration int) string {
	return filepath.Join(d.Path, "screens", fmt.Sprintf("iteration-%d.txt", iteration))
}

// UnknownScreenPath keeps a screen swarm did not know, out of reach of the pruning of
// iteration screens, for the user to report.
func (d Dir) UnknownScreenPath(iteration int) string {
	return filepath.Join(d.Path, "screens", fmt.Sprintf("unknown-iteration-%d.txt", iteration))
}

// PromptCopy is the prompt as read at the start of an iteration (for stdin delivery).
func (d Dir) PromptCopy() string { return filepath.Join(d.Path, "prompt.txt") }

// Exists reports whether a loop state file is present.
func (d Dir) Exists() bool {
	_, err := os.Stat(d.StatePath())
	return err == nil
}

// OutputPipe is the named pipe a pane's output is copied into.
func (d Dir) OutputPipe() string { return filepath.Join(d.Path, "output.fifo") }
