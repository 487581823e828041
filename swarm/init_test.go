package swarm

import (
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/templates"
)

func TestPlanSection(t *testing.T) {
	section := strings.TrimRight(templates.AgentsSection, "\n") + "\n"
	old := "## Process Management (swarm)\nold text\n### old sub\nmore\n"
	cases := []struct {
		name    string
		content string
		exists  bool
		force   bool
		action  initAction
		want    string
	}{
		{"no file", "", false, false, actionCreate, section},
		{"empty file", "", true, false, actionAppend, section},
		{"appended after a blank line", "# Project\n\nrules\n\n\n", true, false, actionAppend, "# Project\n\nrules\n\n" + section},
		{"present", "# P\n" + old, true, false, actionPresent, "# P\n" + old},
		{"replaced at the end", "# P\n\n" + old, true, true, actionReplace, "# P\n\n" + section},
		{"replaced in the middle", "# P\n" + old + "## Testing\nkeep\n", true, true, actionReplace, "# P\n" + section + "\n## Testing\nkeep\n"},
		{"force without a section appends", "# P\n", true, true, actionAppend, "# P\n\n" + section},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			action, got := planSection(c.content, c.exists, c.force)
			if action != c.action || got != c.want {
				t.Errorf("planSection = %d\n%q\nwant %d\n%q", action, got, c.action, c.want)
			}
		})
	}
}

func TestFindSectionEndsAtSameOrHigherHeading(t *testing.T) {
	text := "# Top\n## Process Management (swarm)\na\n#### deep\nb\n# Next\nc\n"
	start, end, ok := findSection(text, templates.AgentsMarker)
	if !ok || text[start:end] != "## Process Management (swarm)\na\n#### deep\nb\n" {
		t.Errorf("section %q (%v)", text[start:end], ok)
	}
	if _, _, ok := findSection("no headings, Process Management (swarm) in text\n", templates.AgentsMarker); ok {
		t.Error("found a section without a heading")
	}
	if headingLevel("#hashtag\n") != 0 || headingLevel("### x\n") != 3 || headingLevel("#\n") != 1 {
		t.Error("headingLevel")
	}
}
