package swarm

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/swarm-dev/swarm/templates"
)

// Where `swarm init` puts its section, and how the file changes: pure functions of the files'
// contents.

// instructionFiles are the files agents read their project instructions from, in the order
// they are looked for.
var instructionFiles = []string{"AGENTS.md", "CLAUDE.md"}

// initTarget picks the file: the one asked for, else AGENTS.md or CLAUDE.md when one exists,
// else a new AGENTS.md.
func initTarget(dir, asked string) string {
	if asked != "" {
		return filepath.Join(dir, asked)
	}
	for _, name := range instructionFiles {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return filepath.Join(dir, name)
		}
	}
	return filepath.Join(dir, instructionFiles[0])
}

// initAction is what `swarm init` does to the instructions file.
type initAction int

const (
	actionCreate  initAction = iota // no file yet
	actionAppend                    // a file without the section
	actionReplace                   // --force over an existing section
	actionPresent                   // the section is there: nothing to do
)

// planSection returns what to do to a file with this content (exists false: no file) and
// the file's new content.
func planSection(content string, exists, force bool) (initAction, string) {
	section := strings.TrimRight(templates.AgentsSection, "\n") + "\n"
	switch {
	case !exists:
		return actionCreate, section
	case strings.Contains(content, templates.AgentsMarker) && !force:
		return actionPresent, content
	}
	if start, end, ok := findSection(content, templates.AgentsMarker); ok {
		rest := content[end:]
		if rest != "" {
			section += "\n"
		}
		return actionReplace, content[:start] + section + rest
	}
	trimmed := strings.TrimRight(content, "\n")
	if trimmed == "" {
		return actionAppend, section
	}
	return actionAppend, trimmed + "\n\n" + section
}

// findSection locates the heading line that holds marker and the end of its section: the
// next heading of the same or a higher level, or the end of the text.
func findSection(content, marker string) (start, end int, ok bool) {
	level, pos := 0, 0
	for _, line := range strings.SplitAfter(content, "\n") {
		if l := headingLevel(line); l > 0 {
			if level > 0 && l <= level {
				return start, pos, true
			}
			if level == 0 && strings.Contains(line, marker) {
				start, level = pos, l
			}
		}
		pos += len(line)
	}
	return start, len(content), level > 0
}

// headingLevel is the level of a Markdown ATX heading line (## x is 2), 0 for other lines.
func headingLevel(line string) int {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n == len(line) || (line[n] != ' ' && line[n] != '\n') {
		return 0
	}
	return n
}
