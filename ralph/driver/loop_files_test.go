package driver

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

func TestStatusPollFallsBackWithoutAFileWatch(t *testing.T) {
	l := New(Config{StatusPoll: 30 * time.Second})
	if got := l.statusPoll(); got != fallbackStatusPoll {
		t.Errorf("unwatched files read every %v, want %v", got, fallbackStatusPoll)
	}
	l.files = &fileWatch{}
	if got := l.statusPoll(); got != 30*time.Second {
		t.Errorf("watched files read every %v, want the configured 30s", got)
	}
	var none *fileWatch
	if none.changed() != nil {
		t.Error("no watch yields changes")
	}
}

// Only a decision whose state could not be written is taken again (and said then): one whose
// events alone could not be logged stands, and a loop that lost its state is no full disk.
func TestUnrecordedIsAStateWriteFailure(t *testing.T) {
	full := &os.PathError{Op: "write", Path: "state.json", Err: syscall.ENOSPC}
	cases := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{full, true},
		{&ralph.UnloggedError{Err: full}, false},
		{ralph.ErrNoLoop, false},
		{&state.CorruptError{Path: "state.json"}, false},
	}
	for _, c := range cases {
		if got := unrecorded(c.err); got != c.want {
			t.Errorf("unrecorded(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestNoRoom(t *testing.T) {
	for err, want := range map[error]bool{
		&os.PathError{Op: "write", Path: "prompt.txt", Err: syscall.ENOSPC}: true,
		&os.PathError{Op: "write", Path: "prompt.txt", Err: syscall.EDQUOT}: true,
		&os.PathError{Op: "open", Path: "prompt.txt", Err: syscall.EACCES}:  false,
	} {
		if got := noRoom(err); got != want {
			t.Errorf("noRoom(%v) = %v", err, got)
		}
	}
}
