package swarm

import (
	"errors"
	"fmt"

	"github.com/swarm-dev/swarm/swarm/worker"
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

// The exit code of a failure is decided in one place, codeOf, from the error a command
// returns, so that a cause wrapped on its way up keeps both its code and its chain:
//
//   - nil: ExitOK.
//   - an *exitError (the outermost one in the chain): its code. fail makes ExitError, notFound
//     and a missing guide topic ExitNotFound, exitCode any code, interrupted 128+signal.
//   - otherwise a *worker.InterruptedError in the chain: 128+signal, as interrupted makes;
//     else an error that wraps a sentinel of sentinelCodes: that sentinel's code
//     (errNoWorker: ExitNotFound).
//   - any other error: ExitError.
//
// The message printed ("swarm: error: ...") is the exitError's own, else the error's text.

// errNoWorker is the cause of every "no worker named 'x'" failure, the commands' own (notFound)
// and the worker lifecycle's: errors.Is finds it however the failure was wrapped.
var errNoWorker = worker.ErrNoWorker

// sentinelCodes maps the causes that have an exit code of their own, for an error that reaches
// codeOf without an *exitError around it.
var sentinelCodes = []struct {
	err  error
	code int
}{
	{errNoWorker, ExitNotFound},
}

// exitError carries the exit code a failure maps to; every command returns one of these (or a
// plain error, which codeOf maps) and ExitErrHandler turns it into a message and a code.
type exitError struct {
	code int
	msg  string
	// silent errors have already said what they had to (e.g. `status` printing "stopped").
	silent bool
	// cause is what the failure wraps (fail's %w), for errors.Is and errors.As; nil if none.
	cause error
}

func (e *exitError) Error() string { return e.msg }

func (e *exitError) Unwrap() error { return e.cause }

// fail is a failure with ExitError, its message formatted as fmt.Errorf does: an error given
// with %w reads as with %v and stays reachable through errors.Is and errors.As.
func fail(format string, args ...any) error {
	return wrapped(ExitError, format, args...)
}

// wrapped is an exitError with code whose message and cause are fmt.Errorf's.
func wrapped(code int, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &exitError{code: code, msg: err.Error(), cause: causeOf(err)}
}

// causeOf is what an fmt.Errorf error wraps: the error given with %w, the formatted error
// itself when several were (its Unwrap gives them all), or nil.
func causeOf(err error) error {
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return u.Unwrap()
	case interface{ Unwrap() []error }:
		return err
	}
	return nil
}

func notFound(name string) error {
	return &exitError{code: ExitNotFound, msg: fmt.Sprintf("no worker named '%s'", name), cause: errNoWorker}
}

// exitCode ends a command with the given code without printing anything more.
func exitCode(code int) error {
	if code == 0 {
		return nil
	}
	return &exitError{code: code, silent: true}
}

// codeOf is the exit code of err, the message to print, and whether it was said already.
func codeOf(err error) (int, string, bool) {
	if err == nil {
		return ExitOK, "", true
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code, ee.msg, ee.silent
	}
	var ie *worker.InterruptedError
	if errors.As(err, &ie) {
		return signalCode(ie.Signal), err.Error(), false
	}
	for _, s := range sentinelCodes {
		if errors.Is(err, s.err) {
			return s.code, err.Error(), false
		}
	}
	return ExitError, err.Error(), false
}

// isNotFound reports whether err says that no worker has the name asked for.
func isNotFound(err error) bool {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code == ExitNotFound
	}
	return errors.Is(err, errNoWorker)
}

// noneNamed is the answer when name names nothing the command could act on: "no worker named
// 'x'" (exit 2) when no worker has that name either, so that a typo reads the same in every
// command; otherwise what (say, "No heartbeat found for w1", exit 1).
func noneNamed(e *env, name string, what error) error {
	ws, err := e.Dir().LoadWorkers(e.warnErr)
	if err == nil && ws.Get(name) == nil {
		return notFound(name)
	}
	return what
}
