package screen

import (
	"crypto/md5"
	"encoding/hex"
	"strings"
)

// activityWindow is how many non-blank lines the inactivity hashes look at: enough to see
// fresh output, few enough that a scrolled-away banner does not matter.
const activityWindow = 20

func hashTail(lines []string) string {
	sum := md5.Sum([]byte(strings.Join(lastNonBlank(lines, activityWindow), "\n")))
	return hex.EncodeToString(sum[:])
}

// ActivityHash fingerprints the bottom of the screen so that an unchanged hash over time
// means no visible activity. Only non-blank lines count, so a pane resize or different
// blank padding does not look like activity.
func ActivityHash(text string) string { return ActivityHashOf(Lines(text)) }

// ActivityHashOf is ActivityHash of a screen already split by Lines.
func ActivityHashOf(lines []string) string { return hashTail(lines) }

// SubstantiveHash is ActivityHash over a screen whose pure animation is masked. A hung
// Claude keeps changing its spinner glyph and elapsed-time counter forever, so the raw
// hash never settles; this one only changes when real output appears.
func SubstantiveHash(text string) string { return SubstantiveHashOf(Lines(text)) }

// SubstantiveHashOf is SubstantiveHash of a screen already split by Lines.
// Only the lines the hash reads are masked (masking can blank a line: a bullet on its own).
func SubstantiveHashOf(lines []string) string {
	return hashTail(lastNonBlankAs(lines, activityWindow, maskAnimation))
}

var (
	// Claude's spinner: a glyph, a present-tense verb with U+2026, and optional counters.
	// The finished form ("✻ Sautéed for 9s") has no ellipsis.
	claudeSpinnerRe = compiled(`^[·✢✳✶✻✽*][ \x{a0}]\S+…`)
	// Braille spinners (Gemini and friends) pair with rotating witty phrases, so the whole
	// line is animation. Only near column 0, so Codex's indented braille logo is left alone.
	brailleSpinnerRe = compiled(`^ {0,2}(?:[│┃] ?)?[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏][ \x{a0}]\S`)
	// Glyphs that blink or rotate at line start: Claude's spinner set and its tool bullet
	// (● alternates with a blank while a tool runs), Codex's ◦/• working bullet.
	leadingGlyphRe = compiled(`^(\s*)[·✢✳✶✻✽*⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏◦•●⏺](?:[ \x{a0}]|$)`)
	retryInRe      = compiled(`(Retrying in )\d+(?:\.\d+)?\s*(?:s|secs?|seconds?)\b`)
	durationRe     = compiled(`<?\b\d+(?:\.\d+)?[hms]\b(?:\s\d+(?:\.\d+)?[ms]\b)*`)
	tokensRe       = compiled(`[↓↑]?\s*\d[\d.,]*\s*[kKmM]?\s+tokens\b`)
	tokensUsedRe   = compiled(`(?i)(tokens used:?\s*)\d[\d.,]*[kKmM]?`)
	// opencode's progress bar: a run of ⬝ with ■ moving along it.
	progressBarRe = compiled(`[⬝■]{4,}`)
)

const spinnerToken = "<spinner>"

func maskAnimation(l string) string {
	if claudeSpinnerRe().MatchString(l) || brailleSpinnerRe().MatchString(l) {
		return spinnerToken
	}
	// The blank that replaces a blinking bullet is two columns wide, so map the glyph
	// to two spaces to make both phases of the blink identical.
	l = leadingGlyphRe().ReplaceAllString(l, "${1}  ")
	// The countdown is animation; the attempt number next to it is kept because a new
	// attempt is progress worth noticing.
	l = retryInRe().ReplaceAllString(l, "${1}<t>")
	l = durationRe().ReplaceAllString(l, "<t>")
	l = tokensRe().ReplaceAllString(l, " <n> tokens")
	l = tokensUsedRe().ReplaceAllString(l, "${1}<n>")
	l = progressBarRe().ReplaceAllString(l, "<bar>")
	return strings.TrimRightFunc(l, isBlankRune)
}

// Classify tells from a captured pane whether the agent in it can take input.
// The order matters: a dialog blocks input even if something prompt-like is visible,
