package proc

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Finding a worker's processes by the identity in their environment: a loop looks at every
// iteration's end, and a Regent driving fifty loops would read every process's environment
// many times a second. What was read is kept for up to environsFor: a process's environment
// is what it started (or last ran exec) with, so it changes only at an exec, and a PID is not
// handed out again within a second. An empty environment is not kept: it may be that of a
// process caught between its fork and its exec. Only the swarm variables are kept.

// environsFor is how long an environment read stands for later looks.
const environsFor = time.Second

type environ struct {
	entries []byte // its SWARM_ entries, each followed by a NUL
	read    time.Time
}

var environs = struct {
	sync.Mutex
	seen map[int]environ
}{seen: map[int]environ{}}

// swarmPrefix names the variables that are kept: a tag of another kind is read every time.
const swarmPrefix = "SWARM_"

// Tagged lists the live processes whose environment holds the entry tag (KEY=VALUE), this
// process excepted. Only the user's own processes can be read, which is what is wanted.
func Tagged(tag string) []int { return TaggedSince(tag, 0) }

// TaggedSince is Tagged among the processes started after mark was taken (see Mark); a mark
// of 0 stands for every process.
func TaggedSince(tag string, mark int) []int { return taggedEach([]string{tag}, mark)[0] }

// taggedEach is TaggedSince of several tags in one look through /proc: for each tag, the
// processes carrying it.
func taggedEach(tags []string, mark int) [][]int {
	wants := make([][]byte, len(tags))
	keep := true
	for i, tag := range tags {
		wants[i] = []byte(tag)
		keep = keep && strings.HasPrefix(tag, swarmPrefix)
	}
	self, now := os.Getpid(), time.Now()
	environs.Lock()
	defer environs.Unlock()
	seen := make(map[int]environ, len(environs.seen))
	out := make([][]int, len(tags))
	found := func(pid int, entries []byte) {
		for i, want := range wants {
			if hasEntry(entries, want) && running(pid) {
				out[i] = append(out[i], pid)
			}
		}
	}
	all := pids() // listed before the mark's other bound is read (see startedAfter)
	newer := startedAfter(mark)
	for _, pid := range all {
		env, ok := environs.seen[pid]
		if !newer(pid) {
			if ok {
				seen[pid] = env // not looked at: what was read of it stands
			}
			continue
		}
		if pid == self {
			continue
		}
		if !ok || !keep || now.Sub(env.read) >= environsFor {
			data, err := readEnviron(pid)
			if err != nil || len(data) > 0 {
				seen[pid] = environ{entries: swarmEntries(data), read: now}
			}
			found(pid, data)
			continue
		}
		seen[pid] = env
		found(pid, env.entries)
	}
	environs.seen = seen
	return out
}

// readEnviron reads a process's environment as the kernel keeps it: KEY=VALUE entries, each
// ended by a NUL (a test replaces it).
var readEnviron = environOf

// Environ is a process's environment, empty when it cannot be read.
func Environ(pid int) map[string]string {
	out := map[string]string{}
	data, err := readEnviron(pid)
	if err != nil {
		return out
	}
	for _, kv := range bytes.Split(data, []byte{0}) {
		if k, v, ok := bytes.Cut(kv, []byte{'='}); ok {
			out[string(k)] = string(v)
		}
	}
	return out
}

// swarmEntries keeps the SWARM_ entries of an environment.
func swarmEntries(environ []byte) []byte {
	var out []byte
	for _, kv := range bytes.Split(environ, []byte{0}) {
		if bytes.HasPrefix(kv, []byte(swarmPrefix)) {
			out = append(append(out, kv...), 0)
		}
	}
	return out
}

func hasEntry(environ, entry []byte) bool {
	for _, kv := range bytes.Split(environ, []byte{0}) {
		if bytes.Equal(kv, entry) {
			return true
		}
	}
	return false
}

// killWait is how long KillTagged waits for SIGKILL to take effect.
const killWait = 3 * time.Second

// KillTagged ends every process carrying tag among those started after mark was taken (0:
// any): SIGTERM, up to grace, then SIGKILL. It returns how many there were.
func KillTagged(tag string, mark int, grace time.Duration) int {
	return KillTaggedEach([]string{tag}, mark, grace)[0]
}

// KillTaggedEach is KillTagged of several tags at once: every process found is sent SIGTERM
// first, then all are waited for within the one grace. It returns how many there were of each.
func KillTaggedEach(tags []string, mark int, grace time.Duration) []int {
	found := taggedEach(tags, mark)
	counts := make([]int, len(tags))
	some := false
	for i, pids := range found {
		counts[i] = len(pids)
		some = some || len(pids) > 0
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	if !some {
		return counts // the usual case: one look through /proc, not three
	}
	left := func() bool {
		return slices.ContainsFunc(taggedEach(tags, mark), func(p []int) bool { return len(p) > 0 })
	}
	deadline := time.Now().Add(grace)
	for left() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	killed := false
	for _, pids := range taggedEach(tags, mark) {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			killed = true
		}
	}
	// SIGKILL takes effect once the process is next scheduled, which on a busy machine is not
	// at once: the caller is told they are gone only when they are (or after killWait).
	deadline = time.Now().Add(killWait)
	for killed && left() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	return counts
}
