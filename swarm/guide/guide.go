package guide

import (
	"embed"
	"strings"
)

//go:embed *.md
var files embed.FS

// order is the order the topics are listed in: from running a loop to the reference, then
// the project's own. A topic file not named here is still shown, after these (Names).
var order = []string{
	"loops", "signals", "checks", "cost", "chains", "agent-mode", "landing", "sandbox", "hosts", "schedulers", "regent", "notifications", "events", "serve",
	"configuration", "commands", "exit-codes", "faults", "python", "performance", "development",
}

// Topic is a guide as the list shows it.
type Topic struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Summary string `json:"summary"`
}

// Names are the topics, in the order they are listed.
func Names() []string {
	listed := map[string]bool{}
	var names []string
	for _, n := range order {
		if _, ok := Text(n); ok {
			names = append(names, n)
			listed[n] = true
		}
	}
	entries, _ := files.ReadDir(".") // sorted by name
	for _, e := range entries {
		n := strings.TrimSuffix(e.Name(), ".md")
		if !listed[n] {
			names = append(names, n)
		}
	}
	return names
}

// Topics are the guides with their titles and summaries, in the order they are listed.
func Topics() []Topic {
	var out []Topic
	for _, n := range Names() {
		text, _ := Text(n)
		title, summary := heading(text)
		out = append(out, Topic{Name: n, Title: title, Summary: summary})
	}
	return out
}

// Text is the Markdown of the topic name; false when there is no such guide.
func Text(name string) (string, bool) {
	if name == "" || strings.ContainsAny(name, "/.") {
		return "", false
	}
	data, err := files.ReadFile(name + ".md")
	if err != nil {
		return "", false
	}
	return string(data), true
}

// heading reads a guide's title (its "# " line, the first) and its summary (the paragraph
// after it, its lines joined); either is "" when the file does not start that way.
func heading(text string) (title, summary string) {
	lines := strings.Split(text, "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "# ") {
		return "", ""
	}
	title = strings.TrimSpace(strings.TrimPrefix(lines[0], "# "))
	i := 1
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	var para []string
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
		para = append(para, strings.TrimSpace(lines[i]))
	}
	if len(para) > 0 && (strings.HasPrefix(para[0], "#") || strings.HasPrefix(para[0], "```")) {
		return title, "" // no summary: the guide goes straight on to a section or code
	}
	return title, strings.Join(para, " ")
}
