package tmux

import (
	"strconv"

	"github.com/google/uuid"
)

// Capture returns the pane's text without escape sequences, wrapped lines joined. historyLines
// > 0 includes that many lines of scrollback above the visible screen; < 0 includes all of it.
func (t *Exec) Capture(paneID string, historyLines int) (string, error) {
	args := []string{"capture-pane", "-p", "-J", "-t", paneID}
	if historyLines < 0 {
		args = append(args, "-S", "-")
	} else if historyLines > 0 {
		args = append(args, "-S", strconv.Itoa(-historyLines))
	}
	return t.run(nil, args...)
}

// Paste delivers text exactly as given, through a uniquely named buffer, with line feeds kept as
// line feeds. bracketed wraps it in a bracketed paste when the program asked for one, so a TUI
// takes a multi-line text as one input instead of submitting at the first newline.
func (t *Exec) Paste(paneID, text string, bracketed bool) error {
	if text == "" {
		return nil
	}
	buf, paste := pasteArgs(paneID, bracketed)
	if _, err := t.run([]byte(text), "load-buffer", "-b", buf, "-"); err != nil {
		return err
	}
	if _, err := t.run(nil, paste...); err != nil {
		_, _ = t.run(nil, "delete-buffer", "-b", buf)
		return err
	}
	return nil
}

// pasteArgs names a new buffer for a paste and is the paste-buffer command that types it into
// the pane and deletes it: line feeds kept as line feeds (-r), bracketed when asked (-p).
func pasteArgs(paneID string, bracketed bool) (buf string, paste []string) {
	buf = "swarm-" + uuid.NewString()
	paste = []string{"paste-buffer", "-r", "-d", "-b", buf, "-t", paneID}
	if bracketed {
		paste = append(paste, "-p")
	}
	return buf, paste
}

// SendKeys sends key names (Enter, C-c, Escape, ...), one tmux call per key: some programs
// read a burst of keys as one paste and drop or misread them.
func (t *Exec) SendKeys(paneID string, keys ...string) error {
	for _, k := range keys {
		if _, err := t.run(nil, "send-keys", "-t", paneID, k); err != nil {
			return err
		}
	}
	return nil
}
