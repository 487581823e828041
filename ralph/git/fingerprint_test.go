package git

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestFingerprintChangesWithAnyChange(t *testing.T) {
	dir := newRepo(t)
	fp := func() string {
		t.Helper()
		s, ok := Fingerprint(dir)
		if !ok {
			t.Fatal("not a repository")
		}
		return s
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base := fp()
	if fp() != base {
		t.Fatal("the same checkout has two fingerprints")
	}
	steps := []struct {
		name string
		do   func()
	}{
		{"a new untracked file", func() { write("new.txt", "a") }},
		{"that file grown", func() { write("new.txt", "ab") }},
		{"that file rewritten later", func() {
			later := time.Now().Add(time.Minute)
			write("new.txt", "ba")
			_ = os.Chtimes(filepath.Join(dir, "new.txt"), later, later)
		}},
		{"a commit", func() { mustRun(t, dir, "add", "-A"); mustRun(t, dir, "commit", "-qm", "x") }},
		{"a tracked file modified", func() { write("new.txt", "changed") }},
		{"modified again", func() { write("new.txt", "changed again") }},
	}
	prev := base
	for _, s := range steps {
		s.do()
		if now := fp(); now == prev {
			t.Errorf("%s: fingerprint unchanged", s.name)
		} else {
			prev = now
		}
	}
	if _, ok := Fingerprint(t.TempDir()); ok {
		t.Error("a directory outside any repository has a fingerprint")
	}
}

// A checkout whose changes are large (a data file the agent wrote: its diff is a hundred
// megabytes and more) is fingerprinted without holding git's output: what the fingerprint
// allocates stays far below the diff's size, and a hook printing without end on a failing
// commit leaves only its last bytes in the error.
func TestFingerprintHoldsNoLargeOutput(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "data.txt", "small\n")
	line := "a changed line of data, as an agent may write by the million\n"
	big := []byte(strings.Repeat(line, (48<<20)/len(line)))
	if err := os.WriteFile(filepath.Join(dir, "data.txt"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	before := allocated()
	if _, ok := Fingerprint(dir); !ok {
		t.Fatal("not a repository")
	}
	// The diff (48 MiB added, as "+" lines) passed through the hash: allocated, it would be
	// twice that at least.
	if got := allocated() - before; got > 8<<20 {
		t.Errorf("fingerprinting a 48 MiB change allocated %d MiB", got>>20)
	}
}

func allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

func TestGitErrorKeepsTheEndOfALoudHook(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "a\n")
	hook := filepath.Join(dir, ".git", "hooks", "pre-commit")
	script := "#!/bin/sh\nyes 'a hook that prints without end' | head -c 8000000 >&2\necho 'the hook says why' >&2\nexit 1\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(dir, "commit", "-qam", "refused")
	if err == nil || !strings.HasSuffix(err.Error(), "the hook says why") || len(err.Error()) > outputBound+100 {
		t.Errorf("error of %d bytes, ending %q", len(fmt.Sprint(err)), tail(fmt.Sprint(err), 40))
	}
}

func tail(s string, n int) string { return s[max(len(s)-n, 0):] }
