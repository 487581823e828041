package words

import "strings"

// ShellQuote quotes s for sh: single quotes, with each single quote closed, escaped and
// reopened.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellWord quotes a word for sh only when it needs it, so a command shown to a person reads
// as typed.
func ShellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
		return s
	}
	return ShellQuote(s)
}

// OneLine folds a multi-line message (a tool's, git's) into one line, its runs of white
// space made one space: one log entry, one trailer.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
