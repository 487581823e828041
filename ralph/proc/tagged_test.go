package proc

import (
	"slices"
	"testing"
	"time"
)

// A process's environment is read once a second at most for a swarm tag, and every time
// for a tag of another kind.
func TestTaggedKeepsWhatItReadForASecond(t *testing.T) {
	tag := "SWARM_TEST_KEEP=" + time.Now().Format("150405.000000000")
	a := startTagged(t, tag)
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Contains(Tagged(tag), a.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("the tagged process was not found")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var reads []int
	real := readEnviron
	readEnviron = func(pid int) ([]byte, error) { reads = append(reads, pid); return real(pid) }
	t.Cleanup(func() { readEnviron = real })

	if got := Tagged(tag); !slices.Contains(got, a.Process.Pid) || slices.Contains(reads, a.Process.Pid) {
		t.Fatalf("within the second: found %v, read %v (want %d found without a read)", got, reads, a.Process.Pid)
	}
	environs.Lock()
	env := environs.seen[a.Process.Pid]
	env.read = env.read.Add(-environsFor)
	environs.seen[a.Process.Pid] = env
	environs.Unlock()
	reads = nil
	if got := Tagged(tag); !slices.Contains(got, a.Process.Pid) || !slices.Contains(reads, a.Process.Pid) {
		t.Errorf("a second later: found %v, read %v (want %d read again)", got, reads, a.Process.Pid)
	}
	reads = nil
	if got := Tagged("OTHER_TAG=1"); len(got) != 0 || !slices.Contains(reads, a.Process.Pid) {
		t.Errorf("another kind of tag: found %v, read %v (want every process read)", got, reads)
	}
}
