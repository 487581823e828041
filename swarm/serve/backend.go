package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// Backend is what the routes read and do, grouped by noun. Its values are written as JSON as
// they are: the command line's own types (or json.RawMessage of what a host printed).
type Backend interface {
	// Info is what the server says of itself: swarm's version, the hosts, the user.
	Info(ctx context.Context) (Info, error)
	// Workers is every host's workers, as `swarm ls --format json`.
	Workers(ctx context.Context) (any, error)
	// Worker is one worker (NAME or NAME@HOST), as `swarm status NAME --format json`.
	Worker(ctx context.Context, name string) (any, error)
	// Loop is a loop's state, as `swarm ralph status NAME --format json`.
	Loop(ctx context.Context, name string) (any, error)
	// Iterations are a loop's iteration records, as `swarm ralph logs NAME --format json`.
	Iterations(ctx context.Context, name string) (any, error)
	// Screen is a worker's last lines, as an element of `swarm peek --format json`; with
	// html also its colours as HTML (escaped but for the spans).
	Screen(ctx context.Context, name string, lines int, html bool) (any, error)
	// Report is `swarm report --since SINCE --format json`.
	Report(ctx context.Context, since string) (any, error)
	// Events are the events the query asks for, and the cursor to resume after them.
	Events(ctx context.Context, q EventsQuery) (any, error)

	// The actions run swarm's own commands and return what they said.
	Pause(ctx context.Context, name string) (string, error)
	Resume(ctx context.Context, name string) (string, error)
	Kill(ctx context.Context, name string) (string, error)
	Land(ctx context.Context, name string) (string, error)
	Send(ctx context.Context, name, line string) (string, error)
	Answer(ctx context.Context, name, answer, message string) (string, error)
}

// Info is GET /api/v1/server, but for read_only, which the server adds.
type Info struct {
	Version  string   `json:"version"`
	ReadOnly bool     `json:"read_only"`
	Hosts    []string `json:"hosts"`
	User     string   `json:"user"`
}

// EventsQuery is GET /api/v1/events's parameters: After is each machine's id to start after
// (ID for this machine, HOST:ID for a host's), Since a time for the machines without one.
type EventsQuery struct {
	After   []string
	Since   string
	Workers []string
	Kinds   []string
}

// Error is an error with the HTTP status it answers with; its text is the one line a person
// reads in {"error": ...}.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Errorf is an Error with status.
func Errorf(status int, format string, args ...any) error {
	return &Error{Status: status, Msg: fmt.Sprintf(format, args...)}
}

// statusOf is the HTTP status and message an error answers with: its own, else 500.
func statusOf(err error) (int, string) {
	var e *Error
	if errors.As(err, &e) && e.Status >= 400 {
		return e.Status, e.Msg
	}
	return http.StatusInternalServerError, err.Error()
}
