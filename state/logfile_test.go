package state

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A bounded log keeps its last Max bytes at least, at most twice that, in whole lines: the
// older ones in NAME.1, which ReadLog reads first.
func TestLogRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	l := Log{Path: path, Max: 100}
	var all []string
	for i := range 40 {
		line := fmt.Sprintf("line %02d of the log", i) // 19 bytes and a newline
		all = append(all, line)
		if err := l.Append(line); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, Rotated(path)} {
			if fi, err := os.Stat(p); err == nil && fi.Size() > l.Max {
				t.Fatalf("%s grew to %d bytes, past %d", filepath.Base(p), fi.Size(), l.Max)
			}
		}
	}
	if got, want := readString(t, path), strings.Join(all[35:], "\n")+"\n"; got != want {
		t.Errorf("the log holds %q, want the last five lines %q", got, want)
	}
	data, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), strings.Join(all[30:], "\n")+"\n"; got != want {
		t.Errorf("ReadLog: %q, want the last ten lines in order %q", got, want)
	}
	assertMode(t, Rotated(path), 0o600)
}

// A line longer than the bound is written all the same, alone in the file.
func TestLogLineLongerThanItsBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	l := Log{Path: path, Max: 10}
	for _, line := range []string{"short", strings.Repeat("long ", 10), "after"} {
		if err := l.Append(line); err != nil {
			t.Fatal(err)
		}
	}
	if got := readString(t, path); got != "after\n" {
		t.Errorf("log: %q", got)
	}
	if got := readString(t, Rotated(path)); got != strings.Repeat("long ", 10)+"\n" {
		t.Errorf("rotated: %q", got)
	}
}

// Writers that rotate the log under each other lose no line and tear none: every line is
// in the log or its rotated part, once (the bound keeps both parts, whatever the order).
func TestLogRotationConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	const writers, lines = 8, 40
	pad := strings.Repeat("p", 100)
	// Rotated once, about half way (the lines take 8*40*111 bytes in all): both parts hold
	// every line.
	l := Log{Path: path, Max: writers * lines * 111 * 6 / 10}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				if err := l.Append(fmt.Sprintf("w%02d l%02d %s", w, i, pad)); err != nil {
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
	if _, err := os.Stat(Rotated(path)); err != nil {
		t.Fatalf("never rotated: %v", err)
	}
	data, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var w, i int
		if _, err := fmt.Sscanf(line, "w%02d l%02d", &w, &i); err == nil && line != fmt.Sprintf("w%02d l%02d %s", w, i, pad) {
			t.Fatalf("torn line %.40q", line)
		}
		seen[line]++
	}
	for w := range writers {
		for i := range lines {
			if line := fmt.Sprintf("w%02d l%02d %s", w, i, pad); seen[line] != 1 {
				t.Fatalf("%.10q is there %d times, want once", line, seen[line])
			}
		}
	}
}

func TestLogMarksATornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	if err := os.WriteFile(path, []byte("whole\n2026-01-01T00:00:00 [START] itera"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := (Log{Path: path, Mark: TornMark}).Append("next"); err != nil {
		t.Fatal(err)
	}
	if got, want := readString(t, path), "whole\n2026-01-01T00:00:00 [START] itera [torn]\nnext\n"; got != want {
		t.Fatalf("log is %q, want %q", got, want)
	}
}

// A log that spares the disk leaves out the line that would eat into LogRoom; others still
// take it.
func TestLogSparesANearlyFullDisk(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mounting a small file system needs root: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	// Leave less than LogRoom free.
	if err := os.WriteFile(filepath.Join(dir, "fill"), make([]byte, 256<<10-LogRoom+8<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "own.log")
	if err := (Log{Path: path, Spare: true}).Append("what happened"); !errors.Is(err, ErrLogRoom) {
		t.Fatalf("a line of a sparing log on a nearly full disk: %v, want ErrLogRoom", err)
	}
	if err := AppendLine(path, "a record"); err != nil {
		t.Fatalf("a record on a nearly full disk: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "fill")); err != nil {
		t.Fatal(err)
	}
	if err := (Log{Path: path, Spare: true}).Append("room again"); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, path); got != "a record\nroom again\n" {
		t.Errorf("log: %q", got)
	}
}

// The end of a log that was just started afresh reaches back into its rotated part.
func TestTailLogReachesIntoTheRotatedPart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	if err := os.WriteFile(Rotated(path), []byte("one\ntwo\nthree\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("four\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for limit, want := range map[int64]string{3: "ur\n", 5: "four\n", 11: "three\nfour\n", 100: "one\ntwo\nthree\nfour\n"} {
		got, err := TailLog(path, limit)
		if err != nil || string(got) != want {
			t.Errorf("TailLog(%d) = %q, %v; want %q", limit, got, err, want)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got, err := TailLog(path, 6); err != nil || string(got) != "three\n" {
		t.Errorf("TailLog of a log not started afresh yet = %q, %v", got, err)
	}
	if _, err := TailLog(filepath.Join(t.TempDir(), "none.log"), 6); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("TailLog of no log: %v", err)
	}
}
