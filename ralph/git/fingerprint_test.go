package git

import (
	"os"
	"path/filepath"
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
