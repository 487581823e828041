package ralph

import (
	"os"
	"syscall"
	"testing"
)

// inode identifies the file at path: a write replaces it with a new one.
func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// An update that changes nothing writes nothing (a loop updates its files several times per
// iteration, and each write waits for the disk); one that changes something is written.
func TestUpdatesThatChangeNothingAreNotWritten(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	if err := d.Create(&State{Status: StatusRunning, Checks: []string{"make test"}}); err != nil {
		t.Fatal(err)
	}
	before := inode(t, d.StatePath())
	if _, err := d.Update(func(s *State) error { s.Status = StatusRunning; return nil }); err != nil {
		t.Fatal(err)
	}
	if inode(t, d.StatePath()) != before {
		t.Error("an update that changed nothing rewrote the state file")
	}
	if _, err := d.Update(func(s *State) error { s.Checks[0] = "go test"; return nil }); err != nil {
		t.Fatal(err)
	}
	if st, err := d.Load(); err != nil || st.Checks[0] != "go test" {
		t.Errorf("a change inside a list was not written: %+v, %v", st, err)
	}

	if err := d.UpdateSupervision(func(rs *SupervisionState) { rs.Iteration = 3 }); err != nil {
		t.Fatal(err)
	}
	before = inode(t, d.SupervisionStatePath())
	if err := d.UpdateSupervision(func(rs *SupervisionState) { rs.Iteration = 3 }); err != nil {
		t.Fatal(err)
	}
	if inode(t, d.SupervisionStatePath()) != before {
		t.Error("a supervision update that changed nothing rewrote its file")
	}
	if err := d.UpdateSupervision(func(rs *SupervisionState) { rs.Iteration = 4 }); err != nil || d.LoadSupervision().Iteration != 4 {
		t.Errorf("a supervision change was not written (%v)", err)
	}

	// A note about the running agent follows the same rules, without waiting for the disk.
	before = inode(t, d.StatePath())
	if _, err := d.Note(func(s *State) error { s.Phase = ""; return nil }); err != nil {
		t.Fatal(err)
	}
	if inode(t, d.StatePath()) != before {
		t.Error("a note that changed nothing rewrote the state file")
	}
	if _, err := d.Note(func(s *State) error { s.Phase = PhaseWorking; return nil }); err != nil {
		t.Fatal(err)
	}
	if st, err := d.Load(); err != nil || st.Phase != PhaseWorking || st.Checks[0] != "go test" {
		t.Errorf("a note was not written whole: %+v, %v", st, err)
	}
}
