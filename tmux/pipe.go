package tmux

import "strings"

// PipeOutput copies everything the pane prints, from now on, into the named pipe fifo (one the
// caller holds open for reading), after an empty line: whoever reads it learns the moment the
// pane changed without asking tmux. tmux runs the copier (cat) itself; it lives as long as the
// pipe, across the pane's respawns, and ends when the pane goes, when the pipe is replaced, or
// when nobody reads the fifo any more.
func (t *Exec) PipeOutput(paneID, fifo string) error {
	// Opened for writing only, so that with no reader left the copier's next write ends it
	// (SIGPIPE) instead of blocking on a full pipe forever; opened through a read-write
	// descriptor first, so that the open itself never waits for a reader (one that died before
	// it came would leave it waiting for good). The empty line tells the reader the copier is
	// there.
	q := shellQuote(fifo)
	_, err := t.run(nil, "pipe-pane", "-t", paneID, "-O", "exec 3<>"+q+" >"+q+" 3<&- && echo && exec cat")
	return err
}

// shellQuote makes s one word for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
