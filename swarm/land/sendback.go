package land

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/acarl005/stripansi"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// outputTailLines is how much of a red suite's output a loop sent back is told.
const outputTailLines = 30

// SendBackNote is what the agent of a loop whose branch did not land is told at the start of
// its next iteration: what failed and what to do about it on its own branch.
func SendBackNote(r *Record) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Your branch %s did not land on %s: %s.\n", r.Branch, r.Target, r.Reason)
	merge := "git merge " + r.Target
	if r.Clone {
		// A clone has the repository's branches as origin's, as they were when last fetched.
		merge = "git fetch origin, then git merge origin/" + r.Target
	}
	switch r.State {
	case NeedsRebase:
		fmt.Fprintf(&b, "Conflicting files: %s.\n", strings.Join(r.Conflicts, ", "))
		fmt.Fprintf(&b, "Merge %s into your branch (%s), resolve the conflicts in those files, make the tests pass and commit.\n", r.Target, merge)
	case BreaksTests:
		fmt.Fprintf(&b, "The test command `%s` failed on your branch merged onto %s. The end of its output:\n\n", r.TestCommand, r.Target)
		for _, line := range Tail(r.OutputFile, outputTailLines) {
			fmt.Fprintf(&b, "    %s\n", line)
		}
		fmt.Fprintf(&b, "\nMerge %s into your branch (%s), fix what fails, run `%s` until it passes and commit.\n", r.Target, merge, r.TestCommand)
	}
	b.WriteString("Then finish as before: your branch is offered for landing again once you are done.\n")
	return b.String()
}

// WriteSendBackNote leaves the note of r for the next iteration of the worker's loop at ld.
func WriteSendBackNote(ld ralph.Dir, r *Record) error {
	return state.WriteFileAtomic(ld.NextPromptNote(), []byte(SendBackNote(r)), 0o600)
}

// MarkResumed records that the worker's loop was resumed with what failed.
func MarkResumed(d *state.Dir, r *Record) error {
	r.ResumedLoop = time.Now().UTC().Format(time.RFC3339)
	return save(d, r)
}

// tailRead is how much of the end of an output file Tail reads: the lines it shows are in it.
const tailRead = 64 << 10

// tailWidth bounds a line Tail shows.
const tailWidth = 300

// Tail is the last n lines of the file at path (none when it cannot be read), read from its
// end whatever its size, and made safe to show: terminal escapes and other control
// characters left out, each line cut at tailWidth characters.
func Tail(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return nil
	}
	from := max(0, fi.Size()-tailRead)
	data := make([]byte, fi.Size()-from)
	if _, err := f.ReadAt(data, from); err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if from > 0 && len(lines) > 1 {
		lines = lines[1:] // read from the middle of a line
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if l = Printable(l); utf8.RuneCountInString(l) > tailWidth {
			l = string([]rune(l)[:tailWidth]) + "…"
		}
		lines[i] = l
	}
	return lines
}

// Printable is text from a command, git or a hook as it may reach a terminal or a prompt:
// ANSI escape sequences removed, other control characters but tabs dropped, invalid UTF-8
// replaced.
func Printable(s string) string {
	s = stripansi.Strip(strings.ToValidUTF8(s, "\uFFFD"))
	return strings.Map(func(r rune) rune {
		if r != '\t' && unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}
