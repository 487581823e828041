package state

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// ReadFile returns what os.ReadFile would: empty, small and large files whole, a missing one
// as os.ErrNotExist naming its path.
func TestReadFileReadsWhole(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 511, 512, 513, 70 << 10} {
		path := filepath.Join(dir, "f")
		want := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
		if err := os.WriteFile(path, want, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("size %d: read %d bytes (%v)", size, len(got), err)
		}
	}
	missing := filepath.Join(dir, "missing")
	_, err := ReadFile(missing)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := ReadFile(dir); err == nil {
		t.Error("a directory read as a file")
	}
}

// A replaced file gets exactly the mode asked for, whatever the umask.
func TestReplaceFileGivesTheModeAskedFor(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "shared")
	if err := WriteFileAtomic(path, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	assertMode(t, path, 0o644)
	assertOnly(t, dir, "shared")
}
