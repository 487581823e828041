package ralph

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

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

// NextPromptNote is a note for the loop's next iteration only: that iteration's start appends
// it to the prompt and removes it. Whoever resumes a loop can so tell its agent why (a branch
// sent back by the merge queue) without touching the prompt file the user wrote.
func (d Dir) NextPromptNote() string { return filepath.Join(d.Path, "next-prompt-note.md") }

// WithNextPromptNote is prompt with the next iteration's note appended, when there is one.
func (d Dir) WithNextPromptNote(prompt string) string {
	note, err := os.ReadFile(d.NextPromptNote())
	if err != nil || len(note) == 0 {
		return prompt
	}
	return strings.TrimRight(prompt, "\n") + "\n\n" + string(note)
}
