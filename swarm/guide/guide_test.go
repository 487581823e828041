package guide

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// readme is the repository's README.md, which lists the guides.
func readme(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Every topic file starts with its title and a summary of one line, as the list shows them.
func TestTopicsHaveTitleAndOneLineSummary(t *testing.T) {
	topics := Topics()
	if len(topics) == 0 {
		t.Fatal("no guides embedded")
	}
	for _, tp := range topics {
		text, _ := Text(tp.Name)
		lines := strings.Split(text, "\n")
		if tp.Title == "" || tp.Summary == "" {
			t.Errorf("%s.md: title %q, summary %q: want a \"# Title\" line, a blank line, then a summary", tp.Name, tp.Title, tp.Summary)
			continue
		}
		if len(lines) < 4 || lines[1] != "" || lines[2] != tp.Summary || lines[3] != "" {
			t.Errorf("%s.md: the summary is not one line of its own after the title", tp.Name)
		}
	}
}

// The list's order names every topic file once, and no file that is not there.
func TestOrderNamesEveryTopic(t *testing.T) {
	entries, err := files.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var onDisk []string
	for _, e := range entries {
		onDisk = append(onDisk, strings.TrimSuffix(e.Name(), ".md"))
	}
	listed := slices.Clone(order)
	slices.Sort(listed)
	if !slices.Equal(onDisk, listed) {
		t.Errorf("topic files %q, but order lists %q", onDisk, listed)
	}
	if got := Names(); !slices.Equal(got, order) {
		t.Errorf("Names() = %q, want %q", got, order)
	}
}

func TestTextOfUnknownOrOddNames(t *testing.T) {
	for _, name := range []string{"", "nope", "../README", "loops.md", "."} {
		if _, ok := Text(name); ok {
			t.Errorf("Text(%q) found a guide", name)
		}
	}
	if text, ok := Text("loops"); !ok || !strings.HasPrefix(text, "# ") {
		t.Errorf("Text(loops) = %.20q, %v", text, ok)
	}
}

var readmeLink = regexp.MustCompile(`\]\(swarm/guide/([^)#]*)\.md\)`)

// README.md links every guide, and every guide it links is one the binary has.
func TestReadmeLinksEveryGuide(t *testing.T) {
	linked := map[string]bool{}
	for _, m := range readmeLink.FindAllStringSubmatch(readme(t), -1) {
		linked[m[1]] = true
		if _, ok := Text(m[1]); !ok {
			t.Errorf("README.md links swarm/guide/%s.md, which is no guide", m[1])
		}
	}
	lines := strings.Split(readme(t), "\n")
	for _, tp := range Topics() {
		if !linked[tp.Name] {
			t.Errorf("README.md does not link the guide %s (swarm/guide/%s.md)", tp.Name, tp.Name)
			continue
		}
		// Its entry in the list says what the guide's own summary says.
		link := "(swarm/guide/" + tp.Name + ".md)"
		if !slices.ContainsFunc(lines, func(l string) bool {
			return strings.Contains(l, link) && strings.HasSuffix(l, tp.Summary)
		}) {
			t.Errorf("README.md's entry for %s does not end with its summary %q", tp.Name, tp.Summary)
		}
	}
}

func TestReadmeIsShort(t *testing.T) {
	if n := strings.Count(readme(t), "\n"); n > 200 {
		t.Errorf("README.md has %d lines; at most 200 (the rest belongs in a guide)", n)
	}
}

var guideRef = regexp.MustCompile("`swarm guide\\s+([a-z-]+)`")

// A guide refers to another as `swarm guide NAME`: the name must be a topic, and no link is
// left pointing at a section of the README the guides came from.
func TestGuidesReferToTopicsThatExist(t *testing.T) {
	for _, n := range Names() {
		text, _ := Text(n)
		for _, m := range guideRef.FindAllStringSubmatch(text, -1) {
			if _, ok := Text(m[1]); !ok {
				t.Errorf("%s.md refers to `swarm guide %s`, which is no guide", n, m[1])
			}
		}
		if strings.Contains(text, "](#") {
			t.Errorf("%s.md has a link to an anchor (#...); refer to a topic as `swarm guide NAME`", n)
		}
	}
}

// sourcePath is a file or package of the repository named in a guide: `ralph/decide.go`,
// `swarm/dashboard`, `ralph/config/`.
var sourcePath = regexp.MustCompile("`((?:cmd|swarm|ralph|tmux|state|templates|testdata)/[A-Za-z0-9_./*-]*?)/?`")

// placeholder is a path's part that stands for any name: NAME.txtar, TOPIC.md, swarm/...
var placeholder = regexp.MustCompile(`\.\.\.|(^|/)[A-Z]+\.`)

// The guide for contributors points into the source (where to change what) at files and
// packages that exist: code moves, and a guide that still names where it was sends a reader
// nowhere. (The user guides' paths, such as a project's ralph/inbox.jsonl, are not the
// repository's.)
func TestSourcePathsInDevelopmentGuideExist(t *testing.T) {
	text, ok := Text("development")
	if !ok {
		t.Fatal("no development guide")
	}
	checked := 0
	for _, m := range sourcePath.FindAllStringSubmatch(text, -1) {
		path := m[1]
		if placeholder.MatchString(path) {
			continue
		}
		checked++
		if found, _ := filepath.Glob("../../" + path); len(found) == 0 {
			t.Errorf("development.md names %s, which is not in the repository", path)
		}
	}
	if checked < 10 {
		t.Errorf("development.md names %d source paths; the pattern misses them", checked)
	}
}
