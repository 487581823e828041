package tmux

import "fmt"

// Typing into a pane through the control client: a loop gives every iteration's agent its
// prompt (a paste and an Enter), and three tmux processes a restart were, with fifty loops, a
// fifth of what the machine did.

// Paste is Exec.Paste through the control client: the text goes into a uniquely named buffer
// (set-buffer takes it as an argument, quoted) and is pasted from there, in one exchange. A
// text a command line cannot carry (a NUL byte) is ErrUnquotable: a tmux process takes it.
func (c *Control) Paste(paneID, text string, bracketed bool) error {
	if !validTarget(paneID) {
		return fmt.Errorf("invalid pane %q", paneID)
	}
	if text == "" {
		return nil
	}
	buf := newPasteBuffer()
	set, ok := commandLine("set-buffer", "-b", buf, "--", text)
	pasteArgv := pasteBufferArgs(paneID, buf, bracketed)
	paste, pok := commandLine(pasteArgv[0], pasteArgv[1:]...)
	if !ok || !pok {
		return ErrUnquotable
	}
	replies, err := c.runAll(set, paste)
	if err != nil {
		return err
	}
	if err := replies[0].err; err != nil {
		return err
	}
	if err := replies[1].err; err != nil {
		// -d deletes the buffer only once pasted.
		_, _ = c.run("delete-buffer -b " + buf)
		return err
	}
	return nil
}

// StageBuffer is Exec.StageBuffer through the control client (set-buffer takes the text as an
// argument, quoted); a text a command line cannot carry is ErrUnquotable.
func (c *Control) StageBuffer(name, text string) error {
	line, ok := commandLine("set-buffer", "-b", name, "--", text)
	if !ok {
		return ErrUnquotable
	}
	_, err := c.run(line)
	return err
}

// PasteBuffer is Exec.PasteBuffer through the control client.
func (c *Control) PasteBuffer(paneID, name string, bracketed bool) error {
	if !validTarget(paneID) {
		return fmt.Errorf("invalid pane %q", paneID)
	}
	args := pasteBufferArgs(paneID, name, bracketed)
	line, _ := commandLine(args[0], args[1:]...)
	replies, err := c.runAll(line)
	if err != nil {
		// No answer: the buffer is left to tell whether the paste happened.
		return err
	}
	if err := replies[0].err; err != nil {
		// -d deletes the buffer only once pasted.
		_, _ = c.run("delete-buffer -b " + name)
		return err
	}
	return nil
}

// SendKeys is Exec.SendKeys through the control client: one command per key, each answered
// before the next is sent, so that the program reads them apart as it would from a tmux
// process each.
func (c *Control) SendKeys(paneID string, keys ...string) error {
	if !validTarget(paneID) {
		return fmt.Errorf("invalid pane %q", paneID)
	}
	for _, k := range keys {
		line, ok := commandLine("send-keys", "-t", paneID, k)
		if !ok {
			return ErrUnquotable
		}
		if _, err := c.run(line); err != nil {
			return err
		}
	}
	return nil
}
