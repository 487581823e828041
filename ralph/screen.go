package ralph

import (
	"crypto/md5"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acarl005/stripansi"
)

// ScreenKind says what an agent's pane is doing, as far as its captured text shows.
type ScreenKind int

const (
	ScreenUnknown ScreenKind = iota // nothing recognised (e.g. program still starting)
	ScreenReady                     // idle at an input prompt, safe to type
	ScreenBusy                      // working (spinner, "esc to interrupt", "Working (", retrying)
	ScreenDialog                    // a first-run / confirmation dialog blocks input
)

func (k ScreenKind) String() string {
	switch k {
	case ScreenUnknown:
		return "unknown"
	case ScreenReady:
		return "ready"
	case ScreenBusy:
		return "busy"
	case ScreenDialog:
		return "dialog"
	}
	return "ScreenKind(" + strconv.Itoa(int(k)) + ")"
}

// ScreenState is the verdict of ClassifyScreen.
type ScreenState struct {
	Kind   ScreenKind
	Dialog string // for ScreenDialog: a stable name such as "trust-folder"
	Agent  string // "claude", "codex", "gemini", "aider", "opencode", "shell" or "" when unknown
}

const (
	// activityWindow is how many non-blank lines the inactivity hashes look at: enough to
	// see fresh output, few enough that a scrolled-away banner does not matter.
	activityWindow = 20
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

func isBlankRune(r rune) bool { return unicode.IsSpace(r) || r == '\u00a0' }

// ScreenLines strips ANSI codes, right-trims each line (NBSP counts as space here, since
// Claude pads its prompt with it) and drops trailing blank lines. NBSPs inside a line are
// kept: they tell Claude's input box (`❯` NBSP) from a submitted message (`❯` space).
func ScreenLines(screen string) []string {
	raw := strings.Split(stripansi.Strip(screen), "\n")
	lines := make([]string, 0, len(raw))
	for _, l := range raw {
		lines = append(lines, strings.TrimRightFunc(l, isBlankRune))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lastNonBlank returns up to n of the last non-blank lines, in screen order.
func lastNonBlank(lines []string, n int) []string {
	var tail []string
	for i := len(lines) - 1; i >= 0 && len(tail) < n; i-- {
		if lines[i] != "" {
			tail = append(tail, lines[i])
		}
	}
	for i, j := 0, len(tail)-1; i < j; i, j = i+1, j-1 {
		tail[i], tail[j] = tail[j], tail[i]
	}
	return tail
}

// tailStart returns the index from which lines[:end] holds n non-blank lines.
func tailStart(lines []string, end, n int) int {
	i := end
	for i > 0 && n > 0 {
		i--
		if lines[i] != "" {
			n--
		}
	}
	return i
}

func hashTail(lines []string) string {
	sum := md5.Sum([]byte(strings.Join(lastNonBlank(lines, activityWindow), "\n")))
	return hex.EncodeToString(sum[:])
}

// ActivityHash fingerprints the bottom of the screen so that an unchanged hash over time
// means no visible activity. Only non-blank lines count, so a pane resize or different
// blank padding does not look like activity.
func ActivityHash(screen string) string {
	return hashTail(ScreenLines(screen))
}

// SubstantiveHash is ActivityHash over a screen whose pure animation is masked. A hung
// Claude keeps changing its spinner glyph and elapsed-time counter forever, so the raw
// hash never settles; this one only changes when real output appears.
func SubstantiveHash(screen string) string {
	lines := ScreenLines(screen)
	masked := make([]string, len(lines))
	for i, l := range lines {
		masked[i] = maskAnimation(l)
	}
	return hashTail(masked)
}

var (
	// Claude's spinner: a glyph, a present-tense verb with U+2026, and optional counters.
	// The finished form ("✻ Sautéed for 9s") has no ellipsis.
	claudeSpinnerRe = regexp.MustCompile(`^[·✢✳✶✻✽*][ \x{a0}]\S+…`)
	// Braille spinners (Gemini and friends) pair with rotating witty phrases, so the whole
	// line is animation. Only near column 0, so Codex's indented braille logo is left alone.
	brailleSpinnerRe = regexp.MustCompile(`^ {0,2}(?:[│┃] ?)?[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏][ \x{a0}]\S`)
	// Glyphs that blink or rotate at line start: Claude's spinner set and its tool bullet
	// (● alternates with a blank while a tool runs), Codex's ◦/• working bullet.
	leadingGlyphRe = regexp.MustCompile(`^(\s*)[·✢✳✶✻✽*⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏◦•●](?:[ \x{a0}]|$)`)
	retryInRe      = regexp.MustCompile(`(Retrying in )\d+(?:\.\d+)?\s*(?:s|secs?|seconds?)\b`)
	durationRe     = regexp.MustCompile(`<?\b\d+(?:\.\d+)?[hms]\b(?:\s\d+(?:\.\d+)?[ms]\b)*`)
	tokensRe       = regexp.MustCompile(`[↓↑]?\s*\d[\d.,]*\s*[kKmM]?\s+tokens\b`)
	tokensUsedRe   = regexp.MustCompile(`(?i)(tokens used:?\s*)\d[\d.,]*[kKmM]?`)
)

const spinnerToken = "<spinner>"

func maskAnimation(l string) string {
	if claudeSpinnerRe.MatchString(l) || brailleSpinnerRe.MatchString(l) {
		return spinnerToken
	}
	// The blank that replaces a blinking bullet is two columns wide, so map the glyph
	// to two spaces to make both phases of the blink identical.
	l = leadingGlyphRe.ReplaceAllString(l, "${1}  ")
	// The countdown is animation; the attempt number next to it is kept because a new
	// attempt is progress worth noticing.
	l = retryInRe.ReplaceAllString(l, "${1}<t>")
	l = durationRe.ReplaceAllString(l, "<t>")
	l = tokensRe.ReplaceAllString(l, " <n> tokens")
	l = tokensUsedRe.ReplaceAllString(l, "${1}<n>")
	return strings.TrimRightFunc(l, isBlankRune)
}

// ClassifyScreen tells from a captured pane whether the agent in it can take input.
// The order matters: a dialog blocks input even if something prompt-like is visible,
// and a busy agent may still show its (idle-looking) input box.
func ClassifyScreen(screen string, readyPattern *regexp.Regexp) ScreenState {
	lines := ScreenLines(screen)
	if len(lines) == 0 {
		return ScreenState{}
	}
	agent := bannerAgent(lines)

	box, hasBox := findClaudeBox(lines)
	comp, hasComp := -1, false
	if !hasBox {
		comp, hasComp = findCodexComposer(lines, agent)
	}

	// Dialogs replace the input area, so text above a live input area is old transcript.
	dialogFrom, busyFrom := 0, tailStart(lines, len(lines), genericBusyWindow)
	switch {
	case hasBox:
		agent = "claude"
		dialogFrom = box.bottom + 1
		busyFrom = tailStart(lines, box.top, busyContext)
	case hasComp:
		agent = "codex"
		dialogFrom = comp + 1
		busyFrom = tailStart(lines, comp, busyContext)
	}

	if name, a := findDialog(lines[dialogFrom:]); name != "" {
		if a == "" {
			a = agent
		}
		return ScreenState{Kind: ScreenDialog, Dialog: name, Agent: a}
	}

	shellAgent, shellPrompt := "", false
	if !hasBox && !hasComp {
		shellAgent, shellPrompt = shellReady(lines, agent)
	}
	// A shell prompt on the last line proves the foreground program is waiting; markers
	// above it are output of something that already finished.
	if !shellPrompt && busyIn(lines[busyFrom:]) {
		return ScreenState{Kind: ScreenBusy, Agent: agent}
	}

	if readyPattern != nil {
		for _, l := range lastNonBlank(lines, readyPatternWindow) {
			if readyPattern.MatchString(l) {
				return ScreenState{Kind: ScreenReady, Agent: agent}
			}
		}
	}
	switch {
	case hasBox || hasComp:
		return ScreenState{Kind: ScreenReady, Agent: agent}
	case shellPrompt:
		return ScreenState{Kind: ScreenReady, Agent: shellAgent}
	}
	if a, ok := tuiReady(lines, agent); ok {
		return ScreenState{Kind: ScreenReady, Agent: a}
	}
	return ScreenState{Kind: ScreenUnknown, Agent: agent}
}

var bannerAgents = []struct {
	name string
	re   *regexp.Regexp
}{
	// The banner scrolls away in long sessions; the turn summary ("✻ Baked for 0s"), the
	// spinner and the retry line stay recognisable.
	{"claude", regexp.MustCompile(`(?m)Claude Code|^✻ \S+ for \d|^[·✢✳✶✻✽*] \S+…|Retrying in \d+s · attempt \d+/\d+`)},
	{"codex", regexp.MustCompile(`OpenAI Codex|Ask Codex to do anything`)},
	{"gemini", regexp.MustCompile(`Type your message or @|\bgemini-\d`)},
	{"aider", regexp.MustCompile(`(?m)^Aider v\d`)},
	{"opencode", regexp.MustCompile(`(?i)\bopencode\b`)},
}

func bannerAgent(lines []string) string {
	text := strings.Join(lines, "\n")
	for _, b := range bannerAgents {
		if b.re.MatchString(text) {
			return b.name
		}
	}
	return ""
}

func isRule(l string) bool {
	l = strings.TrimSpace(l)
	if utf8.RuneCountInString(l) < 10 {
		return false
	}
	return strings.Trim(l, "─") == ""
}

var (
	// Claude's input line: `❯` padded with NBSP when empty, or followed by typed text.
	claudePromptRe = regexp.MustCompile(`^❯(?:[ \x{a0}].*)?$`)
	// A dialog's menu cursor (`❯ 1. Yes`) also starts with `❯`, with a plain space where
	// the input line has NBSP; it must never pass for an input box, even under a rule.
	menuOptionRe = regexp.MustCompile(`^❯ \d+\.[ \x{a0}]`)
)

type claudeBox struct{ top, prompt, bottom int }

// findClaudeBox finds Claude's input box: a prompt line right under a full-width rule,
// closed by another rule below any typed continuation lines. Only the lowest box counts,
// and only if nothing was written below it after Claude exited.
func findClaudeBox(lines []string) (claudeBox, bool) {
	for i := len(lines) - 1; i >= 1; i-- {
		if !claudePromptRe.MatchString(lines[i]) || menuOptionRe.MatchString(lines[i]) || !isRule(lines[i-1]) {
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
	codexPromptRe = regexp.MustCompile(`^›(?:[ \x{a0}].*)?$`)
	// Codex's footer and busy line; `›` alone is also a common zsh prompt, so a `›` line
	// only counts as Codex's composer next to one of these.
	codexMarkRe = regexp.MustCompile(`Ask Codex|\? for shortcuts|esc to interrupt|Working \(`)
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
		if codexPromptRe.MatchString(lines[i]) {
			if !tailIsLive(lines, i+1) {
				return -1, false
			}
			if agent != "codex" && !codexMarkRe.MatchString(strings.Join(lines[i:], "\n")) {
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
	retryingRe = regexp.MustCompile(`Retrying in \d+(?:\.\d+)?\s*s\b`)
	// "Working (12s", "Working...": the bare word would also match a reply such as
	// "● Working through the list, …" left above an idle prompt.
	workingRe = regexp.MustCompile(`^[^\w]{0,3}Working(?: \(|\.\.\.|…)`)
)

// busyIn looks for the markers every supported agent shows while a turn runs. The
// lowercase "esc to cancel" is deliberate: Claude's dialogs say "Esc to cancel" while idle.
func busyIn(lines []string) bool {
	for _, l := range lines {
		if l == "" {
			continue
		}
		if claudeSpinnerRe.MatchString(l) ||
			brailleSpinnerRe.MatchString(l) ||
			workingRe.MatchString(l) ||
			retryingRe.MatchString(l) ||
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
	shellPromptRe = regexp.MustCompile(`^(?:\([\w.\-]+\) )?(?:[\w.\-]+@[\w.\-]+(?::\S*| \S+)?|\[[\w.\-]+@[\w.\-]+(?: [^\]]*)?\]|[\w.\-]+-\d[\d.]*)? ?[$#%]$`)
	// REPL prompts: python, node/aider `>`, aider's mode prompts (`ask>`), IPython.
	replPromptRe = regexp.MustCompile(`^(?:>>>|>|In \[\d+\]:|[A-Za-z][\w-]*>)$`)
)

func trimBlank(l string) string { return strings.TrimFunc(l, isBlankRune) }

// shellReady reports a shell or REPL waiting at a prompt on the very last line. Anything
// after a prompt means the program is producing output, so the last line is the only
// one that counts.
func shellReady(lines []string, banner string) (string, bool) {
	last := trimBlank(lastNonBlank(lines, 1)[0])
	switch {
	case shellPromptRe.MatchString(last):
		return "shell", true
	case replPromptRe.MatchString(last):
		if banner == "aider" {
			return "aider", true
		}
		return "shell", true
	}
	return "", false
}

var (
	glyphPromptRe = regexp.MustCompile(`^[❯›>]$`)
	// A prompt drawn inside a box (Gemini CLI, opencode): `│ >   Type your message … │`.
	boxPromptRe = regexp.MustCompile(`^[│┃║]?[ \x{a0}]*>(?:[ \x{a0}]+(Type your message[^│┃║]*))?[ \x{a0}]*[│┃║]?$`)
)

// tuiReady recognises full-screen agents without captures of their own, conservatively:
// only an empty prompt (a bare glyph, or a placeholder) counts.
func tuiReady(lines []string, banner string) (string, bool) {
	tail := lastNonBlank(lines, genericBusyWindow)
	for i := len(tail) - 1; i >= 0; i-- {
		l := trimBlank(tail[i])
		m := boxPromptRe.FindStringSubmatch(l)
		if m != nil && (m[1] != "" || strings.ContainsAny(l, "│┃║")) {
			if m[1] != "" && banner == "" {
				return "gemini", true
			}
			return banner, true
		}
		// A bare glyph prompt may sit above a footer, but only a footer: indented hint
		// lines or rules, never flush-left output.
		if glyphPromptRe.MatchString(l) && footerOnly(tail[i+1:]) && len(tail)-i <= 3 {
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
	{name: "trust-folder", agent: "claude", any: []string{
		"Yes, I trust this folder",
		"Do you trust the files in this folder?",
		"Is this a project you created or one you trust",
	}, choice: true},
	{name: "api-key", agent: "claude", any: []string{
		"Do you want to use this API key?",
		"Detected a custom API key",
	}, choice: true},
	{name: "bypass-permissions", agent: "claude", all: []string{"Bypass Permissions mode"},
		any: []string{"Yes, I accept", "No, exit"}},
	{name: "tool-permission", agent: "claude", any: []string{
		"Do you want to proceed?",
		"Do you want to make this edit",
		"Do you want to create",
	}, choice: true},
	{name: "press-enter", any: []string{"Press Enter to continue"}, tail: 3},
}

// A selection menu always shows its cursor on one numbered option.
var menuCursorRe = regexp.MustCompile(`(?m)^[ \x{a0}]*[❯›>][ \x{a0}]*\d+\.[ \x{a0}]+\S`)

func findDialog(lines []string) (name, agent string) {
	text := strings.Join(lines, "\n")
	if strings.TrimSpace(text) == "" {
		return "", ""
	}
	hasMenu := menuCursorRe.MatchString(text)
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
	"connectivity":       "Unable to connect to Anthropic services",
	"press-enter":        "Press Enter to continue",
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
