package ralph

import (
	"os"
	"testing"
)

func TestWithNextPromptNote(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	if got := d.WithNextPromptNote("do the work\n"); got != "do the work\n" {
		t.Fatalf("without a note: %q", got)
	}
	if err := os.WriteFile(d.NextPromptNote(), []byte("your branch did not land\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, want := d.WithNextPromptNote("do the work\n"), "do the work\n\nyour branch did not land\n"; got != want {
		t.Fatalf("with a note: %q, want %q", got, want)
	}
}
