package state

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

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
