package swarm

import (
	"io"
	"os"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

// The Regent's lines, as people see them: "[14:25:01]  🛡️  Regent: Tests passed ✅ — commit
// abc1234 kept", in orange on a terminal, wherever they show (a loop in the foreground, ralph
// logs, ralph logs --monitor). Files keep them plain.

// regentMark starts a Regent line in the loop's output and monitor log.
const regentMark = "🛡️  Regent: "

// regentEvent is the kind of a Regent line in the loop's event log (iterations.log).
const regentEvent = "[REGENT] "

// orange is the Regent's colour (256-colour orange), and reset ends it.
const orange, reset = "\x1b[38;5;208m", "\x1b[0m"

// regentLine is one Regent line for display.
func regentLine(at time.Time, text string, color bool) string {
	line := "[" + at.Local().Format("15:04:05") + "]  " + regentMark + text
	if color {
		return orange + line + reset
	}
	return line
}

// colorFor reports whether w gets colours: a terminal, and NO_COLOR not set.
func colorFor(w io.Writer) bool {
	return writesToTerminal(w) && os.Getenv("NO_COLOR") == ""
}

// displayLogLine shows a line of iterations.log or monitor.log ("<time> [REGENT] text" or
// "<time> 🛡️  Regent: text") as a Regent line; any other line stays as it is.
func displayLogLine(line string, color bool) string {
	stamp, rest, ok := strings.Cut(line, " ")
	if !ok {
		return line
	}
	text, isEvent := strings.CutPrefix(rest, regentEvent)
	if !isEvent {
		if text, ok = strings.CutPrefix(rest, regentMark); !ok {
			return line
		}
	}
	at := ralph.ParseTime(stamp)
	if at.IsZero() {
		return line
	}
	return regentLine(at, text, color)
}

// regentLines is a writer for a loop's output on out that shows its Regent lines as such
// (with the time they were written, from now) and passes every other line on as it is.
func regentLines(out io.Writer, color bool, now func() time.Time) *lineWriter {
	return &lineWriter{emit: func(line string) error {
		if text, ok := strings.CutPrefix(line, regentMark); ok {
			line = regentLine(now(), text, color)
		}
		_, err := io.WriteString(out, line+"\n")
		return err
	}}
}
