package git

import (
	"slices"
	"testing"
)

func TestCheckoutChangesTellsUntrackedFromModified(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "one")
	commit(t, dir, "b.txt", "one")
	writeFiles(t, dir, map[string]string{"a.txt": "two", "ralph/plan.jsonl": "{}", "ralph/specs/x.md": "x", "with space.txt": "s"})
	mustRun(t, dir, "rm", "-q", "--cached", "b.txt")
	modified, untracked, err := CheckoutChanges(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.txt", "b.txt"}; !slices.Equal(modified, want) {
		t.Errorf("modified = %q, want %q", modified, want)
	}
	// b.txt is also untracked now: removed from the index, still on disk.
	if want := []string{"b.txt", "ralph/plan.jsonl", "ralph/specs/x.md", "with space.txt"}; !slices.Equal(untracked, want) {
		t.Errorf("untracked = %q, want %q", untracked, want)
	}
}

func TestCheckoutChangesOfACleanCheckout(t *testing.T) {
	dir := newRepo(t)
	commit(t, dir, "a.txt", "one")
	writeFiles(t, dir, map[string]string{".gitignore": "*.log\n", "x.log": "ignored"})
	mustRun(t, dir, "add", ".gitignore")
	mustRun(t, dir, "commit", "-q", "-m", "ignore")
	modified, untracked, err := CheckoutChanges(dir)
	if err != nil || modified != nil || untracked != nil {
		t.Fatalf("got %q %q %v, want nothing", modified, untracked, err)
	}
}

func TestChangedPaths(t *testing.T) {
	dir := newRepo(t)
	from := commit(t, dir, "a.txt", "one")
	commit(t, dir, "a.txt", "two")
	writeFiles(t, dir, map[string]string{"dir/b.txt": "b"})
	to := commit(t, dir, "dir/b.txt", "b")
	got, err := ChangedPaths(dir, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.txt", "dir/b.txt"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
