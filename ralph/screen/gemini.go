package screen

// Gemini CLI draws its input line under a full-width rule (see geminiInput), and its
// messages as Qwen Code, its fork, does: an error is "✕ [API Error: ...]" above the input,
// under the echo of the prompt ("> ...") and before any notice (ℹ ...) it adds.

// geminiAPIError reads Gemini CLI's last message above its input line when it is an API
// error; ok is false on any other screen.
func geminiAPIError(lines []string) (string, bool) {
	rule, _, ok := geminiInput(lines)
	if !ok {
		return "", false
	}
	return qwenAPIError(lines[:rule])
}
