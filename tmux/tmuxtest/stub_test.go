package tmuxtest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what a Stub reports, and runs the Stub's cleanup when
// told, so the checks that fail a test can themselves be tested.
type recorder struct {
	testing.TB
	errs     []string
	cleanups []func()
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recorder) end() {
	for _, f := range r.cleanups {
		f()
	}
}

func TestStubAnswersInOrder(t *testing.T) {
	r := &recorder{TB: t}
	s := NewStub(r)
	s.Expect("tmux", "-L", "x", "list-panes").Prints("%1\n")
	s.ExpectMatch(`^tmux -L x load-buffer -b buf-\d+ -$`).Reads("text")
	s.Expect("tmux", "-L", "x", "kill-pane", "-t", "%1").Fails("can't find pane: %1")
	s.Expect("tmux", "-L", "x", "kill-server").FailsWith(errors.ErrUnsupported)

	if out, errOut, err := s.Run([]string{"tmux", "-L", "x", "list-panes"}, nil); out != "%1\n" || errOut != "" || err != nil {
		t.Errorf("first call answered %q, %q, %v", out, errOut, err)
	}
	if _, _, err := s.Run([]string{"tmux", "-L", "x", "load-buffer", "-b", "buf-42", "-"}, []byte("text")); err != nil {
		t.Errorf("second call: %v", err)
	}
	if _, errOut, err := s.Run([]string{"tmux", "-L", "x", "kill-pane", "-t", "%1"}, nil); errOut != "can't find pane: %1\n" || err == nil {
		t.Errorf("third call answered %q, %v; want tmux's failure", errOut, err)
	}
	if _, _, err := s.Run([]string{"tmux", "-L", "x", "kill-server"}, nil); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("fourth call: %v", err)
	}
	r.end()
	if len(r.errs) != 0 {
		t.Errorf("reported %q", r.errs)
	}
	if n := len(s.Calls()); n != 4 {
		t.Errorf("%d calls recorded, want 4", n)
	}
}

func TestStubFailsTheTest(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(s *Stub)
		argv   []string
		stdin  []byte
		report string
	}{
		{"call nobody registered", func(s *Stub) {}, []string{"tmux", "kill-server"}, nil, "unexpected tmux call: tmux kill-server"},
		{"different argv", func(s *Stub) { s.Expect("tmux", "send-keys", "-t", "%1", "Enter") },
			[]string{"tmux", "send-keys", "-t", "%1", "C-m"}, nil, "want: tmux send-keys -t %1 Enter"},
		{"out of order", func(s *Stub) { s.Expect("tmux", "a"); s.Expect("tmux", "b") },
			[]string{"tmux", "b"}, nil, "got: tmux b\nwant: tmux a"},
		{"unexpected stdin", func(s *Stub) { s.Expect("tmux", "load-buffer", "-") },
			[]string{"tmux", "load-buffer", "-"}, []byte("x"), `got: tmux load-buffer - <<< "x"`},
		{"wrong stdin", func(s *Stub) { s.Expect("tmux", "load-buffer", "-").Reads("y") },
			[]string{"tmux", "load-buffer", "-"}, []byte("x"), `want: tmux load-buffer - <<< "y"`},
		{"pattern", func(s *Stub) { s.ExpectMatch(`^tmux a$`) }, []string{"tmux", "a", "b"}, nil, "want: /^tmux a$/"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{TB: t}
			s := NewStub(r)
			c.setup(s)
			if _, _, err := s.Run(c.argv, c.stdin); !errors.Is(err, errUnexpected) {
				t.Errorf("Run = %v, want the call refused", err)
			}
			if len(r.errs) == 0 || !strings.Contains(r.errs[0], c.report) {
				t.Errorf("reported %q, want %q", r.errs, c.report)
			}
		})
	}
}

func TestStubFailsOnACallNeverMade(t *testing.T) {
	r := &recorder{TB: t}
	s := NewStub(r)
	s.Expect("tmux", "-L", "x", "kill-pane", "-t", "%1")
	s.Expect("tmux", "-L", "x", "new-window", "-n", "a b", "")
	if _, _, err := s.Run([]string{"tmux", "-L", "x", "kill-pane", "-t", "%1"}, nil); err != nil {
		t.Fatal(err)
	}
	if len(r.errs) != 0 {
		t.Fatalf("reported %q before the end", r.errs)
	}
	r.end()
	if want := `registered tmux call never made: tmux -L x new-window -n "a b" ""`; len(r.errs) != 1 || r.errs[0] != want {
		t.Errorf("reported %q, want %q", r.errs, want)
	}
}
