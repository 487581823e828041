package regent

import (
	"errors"
	"os"
	"strings"

	"github.com/swarm-dev/swarm/state"
)

// A Regent that keeps dying is given up by its keeper (the daemon's crash loop): commands then
// refuse to start it on their own until the user has looked (Restart).

// GivenUp is why the Regent was given up after a crash loop, "" when it was not.
func GivenUp(d *state.Dir) string {
	data, err := os.ReadFile(FilesOf(d).CrashLoop)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// ErrGivenUp is what a command that needs the Regent says while it is given up.
var ErrGivenUp = errors.New("the Regent stopped after a crash loop: loops are not driven (their agents keep running); see 'swarm regent logs', then run 'swarm regent restart'")
