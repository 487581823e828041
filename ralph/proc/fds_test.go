package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func TestEndStdoutToEndsTheWriterOfAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	writer := exec.Command("sleep", "60")
	writer.Stdout = f
	other := exec.Command("sleep", "60")
	for _, c := range []*exec.Cmd{writer, other} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	defer other.Process.Kill()
	defer writer.Process.Kill()
	if got := StdoutTo(path); !slices.Equal(got, []int{writer.Process.Pid}) {
		t.Fatalf("StdoutTo = %v, want [%d]", got, writer.Process.Pid)
	}
	EndStdoutTo(path)
	if err := writer.Wait(); err == nil {
		t.Error("the writer was not ended")
	}
	if !running(other.Process.Pid) {
		t.Error("a process writing elsewhere was ended")
	}
}
