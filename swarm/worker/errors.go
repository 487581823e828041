package worker

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ErrNoWorker is the cause of every "no worker named 'x'" failure: errors.Is finds it however
// the failure was wrapped, so a caller can tell a name that names nothing from other failures.
var ErrNoWorker = errors.New("no such worker")

// noWorker is the failure for a name that no worker record has.
func noWorker(name string) error { return &NoWorkerError{Name: name} }

// NoWorkerError says that no worker has the name asked for.
type NoWorkerError struct{ Name string }

func (e *NoWorkerError) Error() string { return fmt.Sprintf("no worker named '%s'", e.Name) }

func (e *NoWorkerError) Unwrap() error { return ErrNoWorker }

// InterruptedError is a wait ended by a signal before what it waited for happened; its
// caller decides what that means (a shell gives 128 + the signal's number).
type InterruptedError struct {
	Signal os.Signal
	// Before is what had not happened yet: "'w1' was ready".
	Before string
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted (%s) before %s", SignalName(e.Signal), e.Before)
}

// SignalName is how a signal is named to people: SIGINT rather than "interrupt".
func SignalName(s os.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return s.String()
}
