package tmux

// Unexported parts that the external tests (package tmux_test, which can use tmuxtest)
// check directly.

var (
	ParsePane    = parsePane
	InsideServer = insideServer
)

func (t *Exec) HasSession(name string) (bool, error) { return t.hasSession(name) }
