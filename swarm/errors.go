package swarm

import (
	"errors"
	"fmt"
)

// Exit codes are part of swarm's scripting contract.
// The guide swarm/guide/exit-codes.md lists which command gives which.
const (
	ExitOK       = 0
	ExitError    = 1 // any failure, including usage errors; a loop or agent that failed
	ExitNotFound = 2 // no worker with the given name (swarm guide: no such topic), and nothing else
	// ExitStagnated: a loop run in this terminal stopped because its iterations changed
	// nothing in git. It has a code of its own so that 2 keeps meaning "no such worker".
	ExitStagnated = 3
	// ExitInterrupted: a loop run in this terminal was paused (Ctrl-C, SIGTERM, swarm ralph
	// pause) before it ended; 128 + SIGINT, as a shell reports an interrupted command.
	ExitInterrupted = 130
)

// exitError carries the exit code a failure maps to; every command returns one of these (or a
// plain error, which maps to ExitError) and ExitErrHandler turns it into a message and a code.
type exitError struct {
	code int
	msg  string
	// silent errors have already said what they had to (e.g. `status` printing "stopped").
	silent bool
}

func (e *exitError) Error() string { return e.msg }

func fail(format string, args ...any) error {
	return &exitError{code: ExitError, msg: fmt.Sprintf(format, args...)}
}

func notFound(name string) error {
	return &exitError{code: ExitNotFound, msg: fmt.Sprintf("no worker named '%s'", name)}
}

// exitCode ends a command with the given code without printing anything more.
func exitCode(code int) error {
	if code == 0 {
		return nil
	}
	return &exitError{code: code, silent: true}
}

func codeOf(err error) (int, string, bool) {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code, ee.msg, ee.silent
	}
	return ExitError, err.Error(), false
}

// isNotFound reports whether err says that no worker has the name asked for.
func isNotFound(err error) bool {
	var ee *exitError
	return errors.As(err, &ee) && ee.code == ExitNotFound
}

// noneNamed is the answer when name names nothing the command could act on: "no worker named
// 'x'" (exit 2) when no worker has that name either, so that a typo reads the same in every
// command; otherwise what (say, "No heartbeat found for w1", exit 1).
func noneNamed(e *env, name string, what error) error {
	ws, err := e.dir.LoadWorkers(e.warnErr)
	if err == nil && ws.Get(name) == nil {
		return notFound(name)
	}
	return what
}
