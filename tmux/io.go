package tmux

import (
	"errors"
	"strconv"
	"strings"

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
	buf := newPasteBuffer()
	if err := t.StageBuffer(buf, text); err != nil {
		return err
	}
	return t.PasteBuffer(paneID, buf, bracketed)
}

// StageBuffer puts text into the buffer named name, for PasteBuffer: a caller that records
// the name in between can later tell whether the paste happened (the buffer is gone).
func (t *Exec) StageBuffer(name, text string) error {
	_, err := t.run([]byte(text), "load-buffer", "-b", name, "-")
	return err
}

// PasteBuffer types the staged buffer name into the pane and deletes it, as Paste does.
func (t *Exec) PasteBuffer(paneID, name string, bracketed bool) error {
	if _, err := t.run(nil, pasteBufferArgs(paneID, name, bracketed)...); err != nil {
		_, _ = t.run(nil, "delete-buffer", "-b", name)
		return err
	}
	return nil
}

// HasBuffer reports whether a buffer named name exists: one staged and not pasted yet.
func (t *Exec) HasBuffer(name string) (bool, error) {
	out, err := t.run(nil, "list-buffers", "-F", "#{buffer_name}")
	if err != nil {
		if errors.Is(err, ErrNoServer) {
			return false, nil
		}
		return false, err
	}
	for _, b := range strings.Split(out, "\n") {
		if b == name {
			return true, nil
		}
	}
	return false, nil
}

// DeleteBuffer removes a staged buffer that is not to be pasted.
func (t *Exec) DeleteBuffer(name string) { _, _ = t.run(nil, "delete-buffer", "-b", name) }

// newPasteBuffer names a new buffer for a paste.
func newPasteBuffer() string { return "swarm-" + uuid.NewString() }

// pasteBufferArgs is the paste-buffer command that types buffer name into the pane and
// deletes it: line feeds kept as line feeds (-r), bracketed when asked (-p).
func pasteBufferArgs(paneID, name string, bracketed bool) []string {
	args := []string{"paste-buffer", "-r", "-d", "-b", name, "-t", paneID}
	if bracketed {
		args = append(args, "-p")
	}
	return args
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

// CaptureEscaped is Capture with the text's colours and attributes kept as escape
// sequences (capture-pane -e), for a screen shown in colour.
func (t *Exec) CaptureEscaped(paneID string, historyLines int) (string, error) {
	args := []string{"capture-pane", "-p", "-e", "-J", "-t", paneID}
	if historyLines > 0 {
		args = append(args, "-S", strconv.Itoa(-historyLines))
	}
	return t.run(nil, args...)
}
