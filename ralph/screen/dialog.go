package screen

import "strings"

// dialogRule recognises one dialog by the text it shows.
type dialogRule struct {
	name   string
	agent  string
	all    []string // every one must appear
	any    []string // at least one must appear
	choice bool     // a menu with a selection cursor must be on screen
	tail   int      // when set, the marker must be within this many last non-blank lines
}

// Specific rules come first: the security notes also say "Press Enter to continue".
var dialogRules = []dialogRule{
	{name: "connectivity", agent: "claude", any: []string{"Unable to connect to Anthropic services"}},
	{name: "theme", agent: "claude", any: []string{"Choose the text style"}, choice: true},
	{name: "security-notes", agent: "claude", all: []string{"Security notes", "Press Enter to continue"}},
	// Gemini CLI's menus sit in a box, the cursor a ● on the chosen option; its trust
	// question is Claude Code 2.1.197's, its options are not.
	{name: "trust-folder", agent: "gemini", all: []string{"Do you trust the files in this folder?", "Trust folder"}, choice: true},
	// Copilot boxes its menus too, the cursor a ❯ on the chosen option.
	{name: "trust-folder", agent: "copilot", all: []string{"Confirm folder trust", "Do you trust the files in this folder?"}, choice: true},
	{name: "tool-permission", agent: "copilot", all: []string{"enter to select · esc to cancel"}, any: []string{
		"Do you want to run this command",
		"Do you want to use this tool",
		"Do you want to allow this",
		"Do you want to modify ",
		"Do you want to approve this request",
		"Do you want to read this path",
	}, choice: true},
	{name: "trust-folder", agent: "claude", any: []string{
		"Yes, I trust this folder",
		"Accessing workspace:",
		"Do you trust the files in this folder?",
		"Is this a project you created or one you trust",
	}, choice: true},
	{name: "api-key", agent: "claude", any: []string{
		"Do you want to use this API key?",
		"Detected a custom API key",
	}, choice: true},
	{name: "bypass-permissions", agent: "claude", all: []string{"Bypass Permissions mode"},
		any: []string{"Yes, I accept", "No, exit"}},
	// Asked though permissions are skipped (2.1.332): an rm it cannot check, with the reason
	// above the menu and its own countdown to refusing by itself.
	{name: "dangerous-command", agent: "claude", all: []string{"Do you want to proceed?"}, any: []string{
		"Dangerous rm operation",
		"This requires explicit approval",
		"will automatically block this request",
	}, choice: true},
	{name: "tool-permission", agent: "claude", any: []string{
		"Do you want to proceed?",
		"Do you want to make this edit",
		"Do you want to create",
	}, choice: true},
	{name: "tool-permission", agent: "gemini", any: []string{"Allow execution of"}, choice: true},
	{name: "model-access", agent: "gemini", any: []string{"you don't have access to"}, choice: true},
	{name: "press-enter", any: []string{"Press Enter to continue"}, tail: 3},
}

// A selection menu always shows its cursor on one option: numbered ("❯ 1. Yes") in Claude
// Code 2.1.197; unnumbered and indented in 2.1.332 (" ❯ No, exit", " ❯ ✔ Auto (match
// terminal)"), which tells it from a submitted message: that starts flush left.
// Gemini CLI boxes its menus and marks the option with a ● ("│ ● 1. Allow once"), Copilot
// with a ❯ ("│ ❯ 1. Yes").
var menuCursorRe = compiled(`(?m)^(?:[ \x{a0}]*[❯›>][ \x{a0}]*\d+\.[ \x{a0}]+\S|[ \x{a0}]{1,8}❯ [^ \x{a0}]|[ \x{a0}]*│[ \x{a0}]*[●❯][ \x{a0}]+\d+\.[ \x{a0}]+\S)`)

func findDialog(lines []string) (name, agent string) {
	text := strings.Join(lines, "\n")
	if strings.TrimSpace(text) == "" {
		return "", ""
	}
	hasMenu := menuCursorRe().MatchString(text)
	for _, r := range dialogRules {
		hay := text
		if r.tail > 0 {
			hay = strings.Join(lastNonBlank(lines, r.tail), "\n")
		}
		if r.choice && !hasMenu || !containsAll(hay, r.all) || len(r.any) > 0 && !containsAny(hay, r.any) {
			continue
		}
		return r.name, r.agent
	}
	return "", ""
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// dialogQuestions holds the text a user sees on each dialog, so a report can tell them
// which screen to answer in the pane.
var dialogQuestions = map[string]string{
	"theme":              "Choose the text style that looks best with your terminal",
	"security-notes":     "Security notes … Press Enter to continue",
	"trust-folder":       "Do you trust the files in this folder?",
	"api-key":            "Detected a custom API key … Do you want to use this API key?",
	"bypass-permissions": "Claude Code running in Bypass Permissions mode: No, exit / Yes, I accept",
	"tool-permission":    "Do you want to proceed?",
	"dangerous-command":  "Dangerous rm operation … Do you want to proceed? (asked though permissions are skipped)",
	"connectivity":       "Unable to connect to Anthropic services",
	"press-enter":        "Press Enter to continue",
	"model-access":       "It seems like you don't have access to <model>",
}

// DialogDescription names a dialog for a human, quoting the question it asks so the user
// knows what to answer when they attach to the pane.
func DialogDescription(name string) string {
	if name == "" {
		return "a dialog"
	}
	if q, ok := dialogQuestions[name]; ok {
		return "the " + name + ` dialog ("` + q + `")`
	}
	return "the " + name + " dialog"
}
