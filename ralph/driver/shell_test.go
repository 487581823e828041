package driver

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A step that prints without end keeps its first bytes for its message and shows its first
// 64 KiB (in the loop's log, or its terminal), then how much more there was: never all of it.
func TestAStepsLoudOutputIsBounded(t *testing.T) {
	var shown bytes.Buffer
	res := runShell(context.Background(), shellRun{Argv: []string{"sh", "-c", "yes 'a checker that prints without end' | head -c 20000000; echo last"},
		Env: []string{"PATH=/usr/bin:/bin"}, Out: &shown})
	if res.Code != 0 {
		t.Fatalf("exit %d: %v", res.Code, res.Err)
	}
	if len(res.Output) != outputLimit {
		t.Errorf("kept %d bytes, want %d", len(res.Output), outputLimit)
	}
	if shown.Len() > shownLimit+200 {
		t.Errorf("showed %d bytes, want %d at most and a note", shown.Len(), shownLimit)
	}
	if !strings.HasSuffix(shown.String(), "\n[... 19 MiB more of this command's output not shown: 19.1 MiB in all ...]\n") {
		t.Errorf("showed, at its end: %q", shown.String()[max(shown.Len()-120, 0):])
	}
	var quiet bytes.Buffer
	runShell(context.Background(), shellRun{Argv: []string{"sh", "-c", "echo short"}, Env: []string{"PATH=/usr/bin:/bin"}, Out: &quiet})
	if quiet.String() != "short\n" {
		t.Errorf("a short output shown as %q", quiet.String())
	}
}
