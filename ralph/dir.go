package ralph

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/state"
)

// Where a loop keeps its files: one directory per worker, $SWARM_DIR/ralph/<name>/.

// Dir holds the files of one loop.
type Dir struct {
	Path string
	// Root is the state directory the loop belongs to, whose event log hears of its changes
	// (Tell); "" for a loop directory on its own, which tells nothing.
	Root string
}

// DirFor returns the loop directory of worker name under the swarm state root.
func DirFor(d *state.Dir, name string) Dir { return Dir{Path: d.RalphDir(name), Root: d.Root} }

func (d Dir) StatePath() string { return filepath.Join(d.Path, "state.json") }
func (d Dir) lockPath() string  { return filepath.Join(d.Path, "lock") }

// MonitorLockPath is held by the loop's monitor for its whole life.
func (d Dir) MonitorLockPath() string { return filepath.Join(d.Path, "monitor.lock") }

// IterationsLog is the append-only log of iteration events.
func (d Dir) IterationsLog() string { return filepath.Join(d.Path, "iterations.log") }

// LogEvent appends `<time> [KIND] text` to iterations.log. A line a writer left torn is
// closed with state.TornMark first.
func (d Dir) LogEvent(now time.Time, kind, text string) error {
	line := fmt.Sprintf("%s [%s] %s", now.Format("2006-01-02T15:04:05"), kind, text)
	return state.Log{Path: d.IterationsLog(), Max: EventLogMax, Mark: state.TornMark}.Append(line)
}

// EventLogMax bounds iterations.log: past it the log moves to iterations.log.1 and starts
// afresh (see state.Log), so a loop keeps its last 2 MiB of events at least (about 20,000
// iterations), 4 MiB at most.
const EventLogMax = 2 << 20

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
