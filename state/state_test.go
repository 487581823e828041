package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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

func TestLockExcludesOtherHandles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.lock")
	if IsLocked(path) {
		t.Fatal("IsLocked on a missing file")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("IsLocked created the lock file (stat: %v)", err)
	}

	held, err := AcquireLock(path)
	if err != nil {
		t.Fatal(err)
	}
	assertMode(t, path, 0o600)
	// flock belongs to the open file description, so a second handle in this same process is
	// refused exactly as another process would be.
	if l, ok, err := TryLock(path); err != nil || ok {
		l.Unlock()
		t.Fatalf("TryLock while held: ok=%v err=%v", ok, err)
	}
	if !IsLocked(path) {
		t.Fatal("IsLocked is false while the lock is held")
	}
	// Asking must not take the lock away from its holder.
	if l, ok, _ := TryLock(path); ok {
		l.Unlock()
		t.Fatal("IsLocked released or stole the lock")
	}

	held.Unlock()
	held.Unlock()
	if IsLocked(path) {
		t.Fatal("IsLocked is true after Unlock")
	}
	l, ok, err := TryLock(path)
	if err != nil || !ok {
		t.Fatalf("TryLock after Unlock: ok=%v err=%v", ok, err)
	}
	if !IsLocked(path) {
		t.Fatal("IsLocked is false while TryLock holds the lock")
	}
	l.Unlock()

	var nilLock *Lock
	nilLock.Unlock()
}

func TestAcquireLockWaitsForHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.lock")
	held, err := AcquireLock(path)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *Lock)
	errc := make(chan error, 1)
	go func() {
		l, err := AcquireLock(path)
		if err != nil {
			errc <- err
			return
		}
		got <- l
	}()
	held.Unlock()
	select {
	case l := <-got:
		if !IsLocked(path) {
			t.Error("IsLocked is false while the waiter holds the lock")
		}
		l.Unlock()
	case err := <-errc:
		t.Fatal(err)
	}
}

func openTemp(t *testing.T) *Dir {
	t.Helper()
	d, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// failOnWarn turns any recovered-corruption report into a test failure.
func failOnWarn(t *testing.T) func(error) {
	return func(err error) { t.Errorf("unexpected warning: %v", err) }
}

func TestUpdateWorkersConcurrent(t *testing.T) {
	d := openTemp(t)
	const n = 32
	start := make(chan struct{})
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- d.UpdateWorkers(failOnWarn(t), func(ws *Workers) error {
				ws.Put(&Worker{Name: fmt.Sprintf("w%02d", i), Status: StatusRunning, Started: time.Now().UTC()})
				return nil
			})
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ws, err := d.LoadWorkers(failOnWarn(t))
	if err != nil {
		t.Fatal(err)
	}
	list := ws.List()
	if len(list) != n {
		t.Fatalf("%d workers after %d concurrent updates", len(list), n)
	}
	for i := range n {
		if ws.Get(fmt.Sprintf("w%02d", i)) == nil {
			t.Errorf("worker w%02d lost", i)
		}
	}
	assertOnly(t, d.Root, "logs", "ralph", "state.json", "state.lock")
	assertMode(t, d.statePath(), 0o600)
}

func TestUpdateWorkersErrorKeepsState(t *testing.T) {
	d := openTemp(t)
	if err := d.UpdateWorkers(failOnWarn(t), func(ws *Workers) error {
		ws.Put(&Worker{Name: "a"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := d.UpdateWorkers(failOnWarn(t), func(ws *Workers) error {
		ws.Delete("a")
		ws.Put(&Worker{Name: "b"})
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("UpdateWorkers returned %v, want the callback's error", err)
	}
	ws, err := d.LoadWorkers(failOnWarn(t))
	if err != nil {
		t.Fatal(err)
	}
	if ws.Get("a") == nil || ws.Get("b") != nil {
		t.Fatalf("a failed update was saved: %v", names(ws))
	}
}

func names(ws *Workers) []string {
	var out []string
	for _, w := range ws.List() {
		out = append(out, w.Name)
	}
	return out
}

func TestLoadWorkersMissingAndNameless(t *testing.T) {
	d := openTemp(t)
	ws, err := d.LoadWorkers(failOnWarn(t))
	if err != nil || len(ws.List()) != 0 {
		t.Fatalf("missing state: %v, %v", names(ws), err)
	}
	if err := os.WriteFile(d.statePath(), []byte(`{"workers": [null, {"name": ""}, {"name": "ok"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err = d.LoadWorkers(failOnWarn(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(ws); len(got) != 1 || got[0] != "ok" {
		t.Fatalf("workers %q, want only the named one", got)
	}
}

func TestWorkersListOrder(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ws := &Workers{byName: map[string]*Worker{}}
	ws.Put(&Worker{Name: "late", Started: t0.Add(time.Minute)})
	ws.Put(&Worker{Name: "b", Started: t0})
	ws.Put(&Worker{Name: "a", Started: t0})
	if got := strings.Join(names(ws), ","); got != "a,b,late" {
		t.Fatalf("order %s, want start time then name", got)
	}
}

const corruptState = `{"workers": [ {"name": "x", "status": `

func TestLoadWorkersCorrupt(t *testing.T) {
	d := openTemp(t)
	if err := os.WriteFile(d.statePath(), []byte(corruptState), 0o600); err != nil {
		t.Fatal(err)
	}
	var warnings []error
	warn := func(err error) { warnings = append(warnings, err) }

	ws, err := d.LoadWorkers(warn)
	if err != nil {
		t.Fatalf("LoadWorkers on a corrupt file: %v", err)
	}
	if len(ws.List()) != 0 {
		t.Fatalf("workers %v from a corrupt file", names(ws))
	}
	if len(warnings) != 1 {
		t.Fatalf("%d warnings, want 1: %v", len(warnings), warnings)
	}
	var ce *CorruptError
	if !errors.As(warnings[0], &ce) || !IsCorrupt(warnings[0]) {
		t.Fatalf("warning %T %v is not a *CorruptError", warnings[0], warnings[0])
	}
	if ce.Path != d.statePath() || ce.Err == nil {
		t.Fatalf("CorruptError %+v", ce)
	}
	moved, _ := filepath.Glob(d.statePath() + ".corrupt-*")
	if len(moved) != 1 || moved[0] != ce.MovedTo {
		t.Fatalf("set-aside files %q, error says %q", moved, ce.MovedTo)
	}
	if got := readString(t, ce.MovedTo); got != corruptState {
		t.Fatalf("set-aside file holds %q", got)
	}
	if _, err := os.Stat(d.statePath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("corrupt state.json still in place (stat: %v)", err)
	}
	for _, want := range []string{d.statePath(), ce.MovedTo, "started afresh"} {
		if !strings.Contains(ce.Error(), want) {
			t.Errorf("message %q lacks %q", ce.Error(), want)
		}
	}

	// Once set aside, the corruption is not reported again.
	if _, err := d.LoadWorkers(warn); err != nil {
		t.Fatal(err)
	}
	if err := d.UpdateWorkers(warn, func(ws *Workers) error {
		ws.Put(&Worker{Name: "after"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 {
		t.Fatalf("corruption reported %d times", len(warnings))
	}
	ws, err = d.LoadWorkers(warn)
	if err != nil || ws.Get("after") == nil {
		t.Fatalf("state after recovery: %v, %v", names(ws), err)
	}
}

func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	type rec struct {
		A int    `json:"a"`
		B string `json:"b"`
	}
	path := filepath.Join(dir, "r.json")
	if err := WriteJSON(path, rec{A: 7, B: "x"}); err != nil {
		t.Fatal(err)
	}
	assertMode(t, path, 0o600)
	if data := readString(t, path); !strings.HasSuffix(data, "}\n") {
		t.Fatalf("WriteJSON wrote %q", data)
	}
	var got rec
	if err := ReadJSON(path, &got); err != nil || got != (rec{A: 7, B: "x"}) {
		t.Fatalf("round trip: %+v, %v", got, err)
	}

	err := ReadJSON(filepath.Join(dir, "absent.json"), &got)
	if !errors.Is(err, os.ErrNotExist) || IsCorrupt(err) {
		t.Fatalf("missing file: %v", err)
	}
}

// JSON that does not fit (another version's file) is an error, and stays where it is.
func TestReadJSONWrongTypeStaysInPlace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := os.WriteFile(path, []byte(`{"a": "seven"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var v struct {
		A int `json:"a"`
	}
	err := ReadJSON(path, &v)
	if err == nil || IsCorrupt(err) || !strings.Contains(err.Error(), "cannot read "+path) {
		t.Fatalf("ReadJSON = %v, want a plain read error", err)
	}
	if got := readString(t, path); got != `{"a": "seven"}` {
		t.Fatalf("file now holds %q", got)
	}
	assertOnly(t, dir, "r.json")
}

func TestReadJSONCorrupt(t *testing.T) {
	for name, content := range map[string]string{
		"truncated": `{"a": 1, "b": `,
		"empty":     ``,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "r.json")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			var v struct {
				A int `json:"a"`
			}
			err := ReadJSON(path, &v)
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("ReadJSON returned %T %v, want *CorruptError", err, err)
			}
			if ce.Path != path || !strings.HasPrefix(ce.MovedTo, path+".corrupt-") {
				t.Fatalf("CorruptError %+v", ce)
			}
			var se *json.SyntaxError
			var te *json.UnmarshalTypeError
			if !errors.As(ce.Err, &se) && !errors.As(ce.Err, &te) {
				t.Fatalf("cause %T %v is not a JSON error", ce.Err, ce.Err)
			}
			if got := readString(t, ce.MovedTo); got != content {
				t.Fatalf("set-aside file holds %q", got)
			}
			assertOnly(t, dir, filepath.Base(ce.MovedTo))
			if err := ReadJSON(path, &v); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("second read: %v, want not-exist", err)
			}
		})
	}
}

func TestOpenCreatesPrivateDir(t *testing.T) {
	root := filepath.Join(t.TempDir(), "a", "swarm")
	d, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if d.Root != root {
		t.Fatalf("Root %q, want %q", d.Root, root)
	}
	for _, p := range []string{filepath.Dir(root), root, filepath.Join(root, "logs"), filepath.Join(root, "ralph")} {
		assertMode(t, p, 0o700)
	}
	// Opening again is harmless.
	if _, err := Open(root); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRelativeRoot(t *testing.T) {
	base := t.TempDir()
	t.Chdir(base)
	d, err := Open("rel")
	if err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(wd, "rel"); d.Root != want {
		t.Fatalf("Root %q, want %q", d.Root, want)
	}
}

func TestOpenRefusesOpenDir(t *testing.T) {
	for _, mode := range []os.FileMode{0o777, 0o720, 0o702} {
		t.Run(fmt.Sprintf("%04o", mode), func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "open")
			if err := os.Mkdir(root, 0o700); err != nil {
				t.Fatal(err)
			}
			// Chmod, because Mkdir's mode is filtered through the umask.
			if err := os.Chmod(root, mode); err != nil {
				t.Fatal(err)
			}
			_, err := Open(root)
			if err == nil || !strings.Contains(err.Error(), "writable by others") {
				t.Fatalf("Open of a %04o directory: %v", mode, err)
			}
			assertOnly(t, root)
		})
	}
}

func TestOpenRefusesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); err == nil {
		t.Fatal("Open of a regular file succeeded")
	}
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

func TestWorkerOwnsOnlyItsOwnPane(t *testing.T) {
	w := &Worker{ID: "id-1"}
	if !w.Owns("id-1") || w.Owns("id-2") || w.Owns("") {
		t.Error("a worker with an ID owns exactly the pane that carries it")
	}
	if old := (&Worker{}); !old.Owns("") || !old.Owns("id-2") {
		t.Error("a record without an ID trusts its pane ID")
	}
	if got := w.IDTag(); got != "SWARM_WORKER_ID=id-1" {
		t.Errorf("IDTag = %q", got)
	}
}
