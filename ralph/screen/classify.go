package screen

import (
	"regexp"
	"strconv"
	"strings"
)

// Kind says what an agent's pane is doing, as far as its captured text shows.
type Kind int

const (
	Unknown Kind = iota // nothing recognised (e.g. program still starting)
	Ready               // idle at an input prompt, safe to type
	Busy                // working (spinner, "esc to interrupt", "Working (", retrying)
	Dialog              // a first-run / confirmation dialog blocks input
)

func (k Kind) String() string {
	switch k {
	case Unknown:
		return "unknown"
	case Ready:
		return "ready"
	case Busy:
		return "busy"
	case Dialog:
		return "dialog"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// State is the verdict of Classify.
type State struct {
	Kind   Kind
	Dialog string // for Dialog: a stable name such as "trust-folder"
	Agent  string // "claude", "codex", "gemini", "qwen", "copilot", "aider", "opencode", "shell" or "" when unknown
}

const (
	// readyPatternWindow is how far up a user-supplied ready pattern may match.
	readyPatternWindow = 5
	// busyContext is how many non-blank lines above an input box may hold the spinner:
	// Claude puts a tip and queued messages between the spinner and the box.
	busyContext = 12
	// genericBusyWindow covers a TUI's spinner line, a three-line input box and a footer.
	genericBusyWindow = 6
	// maxInputLines bounds how tall a Claude input box with typed text can be.
	maxInputLines = 30
	// maxComposerTail is how many non-blank lines (typed continuation plus footer) may
	// follow Codex's composer line; more means the `›` line is an old user message.
	maxComposerTail = 6
	// deadGap is the run of blank lines after which further text means somebody else
	// (the shell, after the agent exited) wrote below the agent's last frame: the
	// agents draw their input area and footer as one contiguous block.
	deadGap = 3
)

// Classify tells from a captured pane whether the agent in it can take input.
// The order matters: a dialog blocks input even if something prompt-like is visible,
// and a busy agent may still show its (idle-looking) input box.
func Classify(text string, readyPattern *regexp.Regexp) State {
	lines := Lines(text)
	if len(lines) == 0 {
		return State{}
	}
	in := findInput(lines)
	agent := in.agent

	if name, a := findDialog(lines[in.dialogFrom:]); name != "" {
		// Qwen Code asks in Gemini CLI's words, its fork's; Copilot its trust in Claude Code's.
		if a == "" || a == "gemini" && agent == "qwen" || a == "claude" && agent == "copilot" {
			a = agent
		}
		return State{Kind: Dialog, Dialog: name, Agent: a}
	}

	shellAgent, shellPrompt := "", false
	if !in.live {
		shellAgent, shellPrompt = shellReady(lines, agent)
	}
	// A shell prompt on the last line proves the foreground program is waiting; markers
	// above it are output of something that already finished.
	if !shellPrompt && busyIn(lines[in.busyFrom:]) {
		return State{Kind: Busy, Agent: agent}
	}

	if readyPattern != nil {
		for _, l := range lastNonBlank(lines, readyPatternWindow) {
			if readyPattern.MatchString(l) {
				return State{Kind: Ready, Agent: agent}
			}
		}
	}
	switch {
	case in.live:
		return State{Kind: Ready, Agent: agent}
	case shellPrompt:
		return State{Kind: Ready, Agent: shellAgent}
	}
	if a, ok := tuiReady(lines, agent); ok {
		return State{Kind: Ready, Agent: a}
	}
	return State{Kind: Unknown, Agent: agent}
}

// inputArea says where on screen an agent's own input area is, which decides how much of
// the screen may hold a dialog or a busy marker.
type inputArea struct {
	agent      string
	live       bool // Claude's or opencode's input box, or Codex's composer, is on screen
	dialogFrom int  // first line a dialog may be on
	busyFrom   int  // first line a busy marker may be on
}

func findInput(lines []string) inputArea {
	agent := bannerAgent(lines)
	if box, ok := findCopilotInput(lines); ok {
		return inputArea{agent: "copilot", live: true, dialogFrom: box.bottom + 1,
			busyFrom: tailStart(lines, box.top, busyContext)}
	}
	if box, ok := findClaudeBox(lines); ok {
		// Dialogs replace the input area, so text above a live input area is old transcript.
		return inputArea{agent: "claude", live: true, dialogFrom: box.bottom + 1,
			busyFrom: tailStart(lines, box.top, busyContext)}
	}
	if end, ok := findOpencodeBox(lines); ok {
		return inputArea{agent: "opencode", live: true, dialogFrom: end + 1,
			busyFrom: tailStart(lines, end, busyContext)}
	}
	if comp, ok := findCodexComposer(lines, agent); ok {
		return inputArea{agent: "codex", live: true, dialogFrom: comp + 1,
			busyFrom: tailStart(lines, comp, busyContext)}
	}
	if top, bottom, ok := findQwenInput(lines); ok {
		return inputArea{agent: "qwen", live: true, dialogFrom: bottom + 1,
			busyFrom: tailStart(lines, top, busyContext)}
	}
	return inputArea{agent: agent, busyFrom: tailStart(lines, len(lines), genericBusyWindow)}
}

var bannerAgents = []struct {
	name string
	re   func() *regexp.Regexp
}{
	// The banner scrolls away in long sessions; the turn summary ("✻ Baked for 0s"), the
	// spinner and the retry line stay recognisable.
	{"claude", compiled(`(?m)Claude Code|^✻ \S+ for \d|^[·✢✳✶✻✽*] \S+…|Retrying in \d+s · attempt \d+/\d+`)},
	{"codex", compiled(`OpenAI Codex|Ask Codex to do anything`)},
	{"copilot", compiled(`Copilot v\d+\.\d+\.\d+ uses AI`)},
	// Before Gemini CLI: its fork keeps its placeholder.
	{"qwen", compiled(`Qwen Code \(v\d|\(shift \+ tab to cycle\)`)},
	{"gemini", compiled(`Type your message or @|\bgemini-\d|Gemini CLI v\d`)},
	{"aider", compiled(`(?m)^Aider v\d`)},
	{"opencode", compiled(`(?i)\bopencode\b`)},
}

func bannerAgent(lines []string) string {
	text := strings.Join(lines, "\n")
	for _, b := range bannerAgents {
		if b.re().MatchString(text) {
			return b.name
		}
	}
	return ""
}

var (
	// Claude's input line: `❯` padded with NBSP when empty, or followed by typed text.
	claudePromptRe = compiled(`^❯(?:[ \x{a0}].*)?$`)
	// A dialog's menu cursor (`❯ 1. Yes`) also starts with `❯`, with a plain space where
	// the input line has NBSP; it must never pass for an input box, even under a rule.
	menuOptionRe = compiled(`^❯ \d+\.[ \x{a0}]`)
)

type claudeBox struct{ top, prompt, bottom int }

// findClaudeBox finds Claude's input box: a prompt line right under a full-width rule,
// closed by another rule below any typed continuation lines. Only the lowest box counts,
// and only if nothing was written below it after Claude exited.
func findClaudeBox(lines []string) (claudeBox, bool) {
	for i := len(lines) - 1; i >= 1; i-- {
		if !claudePromptRe().MatchString(lines[i]) || menuOptionRe().MatchString(lines[i]) || !isRule(lines[i-1]) {
			continue
		}
		for j := i + 1; j < len(lines) && j <= i+maxInputLines; j++ {
			if isRule(lines[j]) {
				if !tailIsLive(lines, j+1) {
					return claudeBox{}, false
				}
				return claudeBox{top: i - 1, prompt: i, bottom: j}, true
			}
		}
		return claudeBox{}, false
	}
	return claudeBox{}, false
}

// tailIsLive reports whether lines[from:] can still be the agent's own footer, rather
// than what the shell printed after the agent quit.
func tailIsLive(lines []string, from int) bool {
	gap := 0
	for _, l := range lines[from:] {
		if l == "" {
			gap++
			continue
		}
		if gap >= deadGap || strings.Contains(l, "Resume this session with") {
			return false
		}
		gap = 0
	}
	return true
}

var (
	codexPromptRe = compiled(`^›(?:[ \x{a0}].*)?$`)
	// Codex's footer and busy line; `›` alone is also a common zsh prompt, so a `›` line
	// only counts as Codex's composer next to one of these.
	codexMarkRe = compiled(`Ask Codex|\? for shortcuts|esc to interrupt|Working \(`)
)

// findCodexComposer finds Codex's composer line. Submitted messages are shown with the
// same `›`, so it must be the lowest one, with only a short footer below it. Codex keeps
// its placeholder text there even while working.
func findCodexComposer(lines []string, agent string) (int, bool) {
	seen := 0
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i] == "" {
			continue
		}
		if codexPromptRe().MatchString(lines[i]) {
			if !tailIsLive(lines, i+1) {
				return -1, false
			}
			if agent != "codex" && !codexMarkRe().MatchString(strings.Join(lines[i:], "\n")) {
				return -1, false
			}
			return i, true
		}
		seen++
		if seen > maxComposerTail {
			break
		}
	}
	return -1, false
}

var (
	retryingRe = compiled(`Retrying in \d+(?:\.\d+)?\s*s\b`)
	// "Working (12s", "Working...": the bare word would also match a reply such as
	// "● Working through the list, …" left above an idle prompt.
	workingRe = compiled(`^[^\w]{0,3}Working(?: \(|\.\.\.|…| esc\b| · )`)
)

// busyIn looks for the markers every supported agent shows while a turn runs. The
// lowercase "esc to cancel" is deliberate: Claude's dialogs say "Esc to cancel" while idle.
func busyIn(lines []string) bool {
	for _, l := range lines {
		if l == "" {
			continue
		}
		if claudeSpinnerRe().MatchString(l) ||
			brailleSpinnerRe().MatchString(l) ||
			workingRe().MatchString(l) ||
			retryingRe().MatchString(l) ||
			opencodeBusyRe().MatchString(l) ||
			strings.Contains(l, "esc to interrupt") ||
			strings.Contains(l, "esc to cancel") {
			return true
		}
	}
	return false
}

var (
	// Conventional shell prompts ending in $, # or %: bare, user@host:path, [user@host dir],
	// bash-5.2, with an optional (venv) prefix. Kept narrow so progress output like
	// "Downloading 50%" is not mistaken for a prompt.
	shellPromptRe = compiled(`^(?:\([\w.\-]+\) )?(?:[\w.\-]+@[\w.\-]+(?::\S*| \S+)?|\[[\w.\-]+@[\w.\-]+(?: [^\]]*)?\]|[\w.\-]+-\d[\d.]*)? ?[$#%]$`)
	// REPL prompts: python, node/aider `>`, aider's mode prompts (`ask>`), IPython.
	replPromptRe = compiled(`^(?:>>>|>|In \[\d+\]:|[A-Za-z][\w-]*>)$`)
)

// shellReady reports a shell or REPL waiting at a prompt on the very last line. Anything
// after a prompt means the program is producing output, so the last line is the only
// one that counts.
func shellReady(lines []string, banner string) (string, bool) {
	last := trimBlank(lastNonBlank(lines, 1)[0])
	switch {
	case shellPromptRe().MatchString(last):
		return "shell", true
	case replPromptRe().MatchString(last):
		if banner == "aider" {
			return "aider", true
		}
		return "shell", true
	}
	return "", false
}

var (
	glyphPromptRe = compiled(`^[❯›>]$`)
	// A prompt drawn inside a box: `│ >   Type your message … │`. Gemini CLI draws it bare,
	// and as * in its --yolo mode, which only counts with the placeholder: a lone * is a
	// markdown bullet as often as not.
	boxPromptRe = compiled(`^[│┃║]?[ \x{a0}]*([>*])(?:[ \x{a0}]+(Type your message[^│┃║]*))?[ \x{a0}]*[│┃║]?$`)
)

// tuiReady recognises full-screen agents without captures of their own, conservatively:
// only an empty prompt (a bare glyph, or a placeholder) counts.
func tuiReady(lines []string, banner string) (string, bool) {
	tail := lastNonBlank(lines, genericBusyWindow)
	for i := len(tail) - 1; i >= 0; i-- {
		l := trimBlank(tail[i])
		m := boxPromptRe().FindStringSubmatch(l)
		if m != nil && (m[2] != "" || m[1] == ">" && strings.ContainsAny(l, "│┃║")) {
			if m[2] != "" && banner == "" {
				return "gemini", true
			}
			return banner, true
		}
		// A bare glyph prompt may sit above a footer, but only a footer: indented hint
		// lines or rules, never flush-left output.
		if glyphPromptRe().MatchString(l) && footerOnly(tail[i+1:]) && len(tail)-i <= 3 {
			if banner == "" {
				banner = "shell"
			}
			return banner, true
		}
	}
	return "", false
}

func footerOnly(lines []string) bool {
	for _, l := range lines {
		if !isRule(l) && !strings.HasPrefix(l, " ") {
			return false
		}
	}
	return true
}
