package proc

import "testing"

func TestEndToldByAProcessExit(t *testing.T) {
	exit := kevent{ident: 42, filter: evfiltProc, fflags: noteExit}
	for _, c := range []struct {
		name   string
		events []kevent
		want   bool
	}{
		{"none", nil, false},
		{"the exit", []kevent{exit}, true},
		{"the exit after another event", []kevent{{ident: 42, filter: evfiltProc, fflags: 0x40000000}, exit}, true},
		{"another process's exit", []kevent{{ident: 43, filter: evfiltProc, fflags: noteExit}}, false},
		{"another filter with the same bit", []kevent{{ident: 42, filter: -1, fflags: noteExit}}, false},
		{"a fork, not an exit", []kevent{{ident: 42, filter: evfiltProc, fflags: 0x40000000}}, false},
		{"the watch failed", []kevent{{ident: 42, filter: evfiltProc, flags: evError}}, true},
	} {
		if got := endTold(c.events, 42); got != c.want {
			t.Errorf("%s: endTold = %v, want %v", c.name, got, c.want)
		}
	}
}
