package proc

import (
	"slices"
	"testing"
	"time"
)

// The ids after a mark are those handed out since, also once the ids came round.
func TestIdsAfter(t *testing.T) {
	for _, c := range []struct {
		name            string
		mark, last, max int
		in, out         []int
	}{
		{"in turn", 100, 200, 32768, []int{101, 150, 200}, []int{1, 99, 100, 201, 32767}},
		{"none since", 100, 100, 32768, nil, []int{1, 100, 101, 32767}},
		{"came round", 32700, 50, 32768, []int{32701, 32767, 1, 50}, []int{32700, 51, 1000}},
		{"no mark", 0, 100, 32768, []int{1, 100, 32767}, nil},
		{"no pid_max", 100, 200, 0, []int{1, 100, 32767}, nil},
		{"half round or more", 100, 20000, 32768, []int{1, 100, 30000}, nil},
		{"mark beyond pid_max", 40000, 100, 32768, []int{1, 100, 30000}, nil},
	} {
		after := idsAfter(c.mark, c.last, c.max)
		for _, pid := range c.in {
			if !after(pid) {
				t.Errorf("%s: %d not counted as started after %d", c.name, pid, c.mark)
			}
		}
		for _, pid := range c.out {
			if after(pid) {
				t.Errorf("%s: %d counted as started after %d", c.name, pid, c.mark)
			}
		}
	}
}

// A tagged process that started before the mark is not looked at; one started after is.
func TestTaggedSinceLooksOnlyAtProcessesStartedAfterTheMark(t *testing.T) {
	tag := "SWARM_TEST_TAG=" + time.Now().Format("150405.000000000")
	before := startTagged(t, tag)
	mark := Mark()
	if mark == 0 {
		t.Skip("no /proc/loadavg to take a mark from")
	}
	after := startTagged(t, tag)
	deadline := time.Now().Add(5 * time.Second)
	for len(Tagged(tag)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := Tagged(tag); len(got) != 2 {
		t.Fatalf("Tagged = %v, want both", got)
	}
	got := TaggedSince(tag, mark)
	if !slices.Equal(got, []int{after.Process.Pid}) {
		t.Errorf("TaggedSince = %v, want only %d (started after the mark), not %d", got, after.Process.Pid, before.Process.Pid)
	}
	if n := KillTagged(tag, mark, time.Second); n != 1 {
		t.Errorf("KillTagged ended %d, want 1", n)
	}
	waitGone(t, after.Process.Pid)
	if !Alive(before.Process.Pid, 0) {
		t.Error("the process started before the mark was ended")
	}
}
