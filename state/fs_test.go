package state

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// dirNames lists a directory so that a test can tell exactly which files an operation left.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func assertOnly(t *testing.T, dir string, want ...string) {
	t.Helper()
	got := dirNames(t, dir)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s holds %q, want exactly %q", dir, got, want)
	}
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Fatalf("%s has mode %04o, want %04o", path, got, want)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestWriteFileAtomicCreates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := WriteFileAtomic(path, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "hello\n" {
		t.Fatalf("content %q", got)
	}
	assertMode(t, path, 0o600)
	assertOnly(t, dir, "f.json")
}

func TestWriteFileAtomicReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	// A replaced file takes the new mode: the data lands in a fresh inode, not the old one.
	if err := os.WriteFile(path, []byte("old content that is longer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "new\n" {
		t.Fatalf("content %q", got)
	}
	assertMode(t, path, 0o600)
	assertOnly(t, dir, "f.json")
}

// ReplaceFile skips the waits for the disk, not the temp file: a reader never sees a torn file.
func TestReplaceFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(path, []byte("old content that is longer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReplaceFile(path, []byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "new\n" {
		t.Fatalf("content %q", got)
	}
	assertMode(t, path, 0o600)
	assertOnly(t, dir, "run.sh")
	if err := ReplaceFile(filepath.Join(dir, "absent", "f"), []byte("x"), 0o600); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
}

func TestWriteFileAtomicRenameFailure(t *testing.T) {
	dir := t.TempDir()
	// rename(2) cannot replace a non-empty directory, so everything up to the rename succeeds
	// and the temp file must still be cleaned up.
	path := filepath.Join(dir, "target")
	if err := os.MkdirAll(filepath.Join(path, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("data"), 0o600); err == nil {
		t.Fatal("replacing a non-empty directory succeeded")
	}
	assertOnly(t, dir, "target")
	assertOnly(t, path, "inside")
}

func TestWriteFileAtomicWriteFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 64<<10)

	// A file size limit makes the kernel accept part of the data and then refuse the rest, which
	// is the torn write the temp file is there to hide. The Go runtime ignores SIGXFSZ, so the
	// write just returns EFBIG. Limits are per process: nothing else in this test runs meanwhile.
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	small := lim
	small.Cur = 4096
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		t.Skipf("cannot lower RLIMIT_FSIZE: %v", err)
	}
	werr := WriteFileAtomic(path, big, 0o600)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatalf("cannot restore RLIMIT_FSIZE: %v", err)
	}

	if werr == nil {
		t.Fatal("write beyond the file size limit succeeded")
	}
	if !errors.Is(werr, syscall.EFBIG) {
		t.Logf("write failed with %v (expected EFBIG)", werr)
	}
	if got := readString(t, path); got != "old\n" {
		t.Fatalf("target changed to %d bytes after a failed write", len(got))
	}
	assertOnly(t, dir, "f.json")
}

func TestWriteFileAtomicMissingDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "absent", "f.json")
	if err := WriteFileAtomic(path, []byte("x"), 0o600); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
	assertOnly(t, dir)
}

func TestAppendLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	steps := []struct{ line, want string }{
		{"first", "first\n"},
		{"second\n", "first\nsecond\n"},
		{"", "first\nsecond\n\n"},
		{"with space ", "first\nsecond\n\nwith space \n"},
	}
	for _, s := range steps {
		if err := AppendLine(path, s.line); err != nil {
			t.Fatal(err)
		}
		if got := readString(t, path); got != s.want {
			t.Fatalf("after AppendLine(%q): %q, want %q", s.line, got, s.want)
		}
	}
	assertMode(t, path, 0o600)
}

func TestAppendLineAfterATornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	// A writer died halfway through its line.
	if err := os.WriteFile(path, []byte("whole\nhalf a li"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := AppendLine(path, "next event"); err != nil {
		t.Fatal(err)
	}
	if got, want := readString(t, path), "whole\nhalf a li\nnext event\n"; got != want {
		t.Fatalf("log is %q, want %q: the next entry starts on a fresh line", got, want)
	}
}

func TestAppendLineConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	const writers, lines = 16, 50
	// Long lines make interleaving inside a line likely if writes were ever split.
	pad := strings.Repeat("p", 512)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				if err := AppendLine(path, fmt.Sprintf("w%02d l%02d %s", w, i, pad)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(readString(t, path), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	seen := map[string]bool{}
	for _, l := range got {
		var w, i int
		if _, err := fmt.Sscanf(l, "w%02d l%02d", &w, &i); err != nil || l != fmt.Sprintf("w%02d l%02d %s", w, i, pad) {
			t.Fatalf("torn line %.40q", l)
		}
		seen[l] = true
	}
	if len(seen) != writers*lines {
		t.Fatalf("%d distinct lines, want %d", len(seen), writers*lines)
	}
}
