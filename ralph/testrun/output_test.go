package testrun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSmallOutputIsKeptWhole(t *testing.T) {
	o := newOutput("")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(o, "line %d\n", i)
	}
	text, size, cut := o.kept()
	if cut || size != int64(len(text)) || !strings.HasPrefix(text, "line 0\n") || !strings.HasSuffix(text, "line 99\n") {
		t.Fatalf("cut %v, size %d, text %q...", cut, size, text[:20])
	}
}

// Output past HeadSize+TailSize keeps its head and its tail, the line between them saying what
// was cut, in memory and in the file, and never holds much more than that in memory.
func TestLargeOutputKeepsHeadAndTail(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out.txt")
	o := newOutput(file)
	line := bytes.Repeat([]byte("x"), 99)
	var total int64
	for i := 0; total < 5*TailSize; i++ {
		n, _ := fmt.Fprintf(o, "%08d %s\n", i, line)
		total += int64(n)
		if len(o.tail) >= 2*TailSize || len(o.head) > HeadSize {
			t.Fatalf("kept %d + %d bytes", len(o.head), len(o.tail))
		}
	}
	fmt.Fprint(o, "the last line\n")
	total += 14
	text, size, cut := o.kept()
	if !cut || size != total {
		t.Fatalf("cut %v, size %d, want %d", cut, size, total)
	}
	if !strings.HasPrefix(text, "00000000 x") || !strings.HasSuffix(text, "the last line\n") {
		t.Fatalf("head or tail lost: %q ... %q", text[:20], text[len(text)-20:])
	}
	if len(text) > HeadSize+TailSize+200 {
		t.Fatalf("kept %d bytes", len(text))
	}
	note := fmt.Sprintf("of output cut here: %s in all; its first 8 KiB and last 1 MiB are kept ...]\n", Size(total))
	if !strings.Contains(text, note) {
		t.Fatalf("no note %q", note)
	}
	// Every line kept is whole: the tail starts on a line of its own.
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if !strings.HasPrefix(l, "[...") && l != "the last line" && len(l) != 108 {
			t.Fatalf("torn line %q", l)
		}
	}
	if err := o.close(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(file); string(data) != text {
		t.Fatalf("the file holds %d bytes, not what was kept (%d)", len(data), len(text))
	}
}

func TestRunKeepsAHugeOutputBounded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out.txt")
	res := Run(context.Background(), Spec{Dir: t.TempDir(), OutputFile: file,
		Command: "head -c 20000000 /dev/zero | tr '\\0' 'y' | fold -w 80; echo; echo FAILED here; exit 1"})
	if res.Outcome != Failed || !res.Cut || res.Size < 20000000 {
		t.Fatalf("outcome %v, cut %v, size %d", res.Outcome, res.Cut, res.Size)
	}
	if !strings.HasSuffix(res.Output, "FAILED here\n") {
		t.Fatalf("the end is lost")
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Size() != int64(len(res.Output)) {
		t.Fatalf("file %v, %v; want %d bytes", fi, err, len(res.Output))
	}
}

func TestAFileThatCannotBeWrittenStopsNothing(t *testing.T) {
	res := Run(context.Background(), Spec{Dir: t.TempDir(), Command: "echo ok", OutputFile: filepath.Join(t.TempDir(), "no", "such")})
	if res.Outcome != Passed || res.Output != "ok\n" || res.OutputErr == nil {
		t.Fatalf("%+v", res)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 bytes", 512: "512 bytes", 8 << 10: "8 KiB", 1536: "1.5 KiB",
		1 << 20: "1 MiB", 400 << 20: "400 MiB", 3 << 30: "3 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
