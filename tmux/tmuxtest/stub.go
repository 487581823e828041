package tmuxtest

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/swarm-dev/swarm/tmux"
)

var _ tmux.Runner = (*Stub)(nil)

// Stub is a tmux.Runner that checks every tmux call a test makes through tmux.Exec. Calls must
// come in the order they were registered, each exactly as registered (argv and standard
// input); a call that is not the next one registered fails the test, and so does, when the
// test ends, a registered call that never came. It is safe for concurrent use.
type Stub struct {
	t       testing.TB
	mu      sync.Mutex
	expects []*Expectation
	next    int
	calls   []Call
}

// NewStub returns a Stub that reports to t.
func NewStub(t testing.TB) *Stub {
	s := &Stub{t: t}
	t.Cleanup(s.verify)
	return s
}

// Call is one tmux client run: the whole argv, binary first, and its standard input (nil
// when it had none).
type Call struct {
	Argv  []string
	Stdin []byte
}

func (c Call) String() string { return showArgv(c.Argv) }

// Expectation is one call the code under test must make, and the answer it gets.
type Expectation struct {
	argv    []string       // the exact argv, or nil when pattern is set
	pattern *regexp.Regexp // matched against the argv joined with spaces
	stdin   *string        // nil: the call must read nothing
	stdout  string
	stderr  string
	err     error
}

// Expect registers the next call, with exactly this argv (the binary first).
func (s *Stub) Expect(argv ...string) *Expectation {
	return s.add(&Expectation{argv: slices.Clone(argv)})
}

// ExpectMatch registers the next call by a regular expression over its argv joined with
// single spaces; it is for calls with a generated argument (a paste buffer's name), whose
// value the test can then take from Calls.
func (s *Stub) ExpectMatch(pattern string) *Expectation {
	return s.add(&Expectation{pattern: regexp.MustCompile(pattern)})
}

func (s *Stub) add(e *Expectation) *Expectation {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expects = append(s.expects, e)
	return e
}

// Prints makes the call succeed and print out on its standard output.
func (e *Expectation) Prints(out string) *Expectation {
	e.stdout = out
	return e
}

// Fails makes the call exit with status 1 and print msg on its standard error, which is how
// tmux reports every error.
func (e *Expectation) Fails(msg string) *Expectation {
	e.stderr, e.err = msg+"\n", errors.New("exit status 1")
	return e
}

// FailsWith makes the call fail with err, printing nothing (exec.ErrNotFound: no tmux binary).
func (e *Expectation) FailsWith(err error) *Expectation {
	e.err = err
	return e
}

// Reads requires the call to get exactly in on its standard input.
func (e *Expectation) Reads(in string) *Expectation {
	e.stdin = &in
	return e
}

func (e *Expectation) String() string {
	s := showArgv(e.argv)
	if e.pattern != nil {
		s = "/" + e.pattern.String() + "/"
	}
	if e.stdin != nil {
		s += " <<< " + strconv.Quote(*e.stdin)
	}
	return s
}

func (e *Expectation) matches(c Call) bool {
	if e.pattern != nil {
		if !e.pattern.MatchString(strings.Join(c.Argv, " ")) {
			return false
		}
	} else if !slices.Equal(e.argv, c.Argv) {
		return false
	}
	if e.stdin == nil {
		return c.Stdin == nil
	}
	return c.Stdin != nil && bytes.Equal([]byte(*e.stdin), c.Stdin)
}

// errUnexpected answers a call the test did not register, so the code under test sees a
// failure too.
var errUnexpected = errors.New("tmuxtest: unexpected call")

// Run answers the call from the next expectation.
func (s *Stub) Run(argv []string, stdin []byte) (string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := Call{Argv: slices.Clone(argv)}
	if stdin != nil {
		c.Stdin = slices.Clone(stdin)
	}
	s.calls = append(s.calls, c)
	if s.next == len(s.expects) {
		s.t.Errorf("unexpected tmux call: %s%s", c, showStdin(c.Stdin))
		return "", "", errUnexpected
	}
	e := s.expects[s.next]
	if !e.matches(c) {
		s.t.Errorf("tmux call %d:\n got: %s%s\nwant: %s", len(s.calls), c, showStdin(c.Stdin), e)
		return "", "", errUnexpected
	}
	s.next++
	return e.stdout, e.stderr, e.err
}

// Calls returns every call made so far, expected or not, in order.
func (s *Stub) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

func (s *Stub) verify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.expects[s.next:] {
		s.t.Errorf("registered tmux call never made: %s", e)
	}
}

// showArgv joins argv with spaces, quoting the arguments whose limits would not show
// otherwise (empty ones, ones with blanks or quotes).
func showArgv(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\;#$") {
			out[i] = strconv.Quote(a)
		}
	}
	return strings.Join(out, " ")
}

func showStdin(in []byte) string {
	if in == nil {
		return ""
	}
	return fmt.Sprintf(" <<< %q", in)
}
