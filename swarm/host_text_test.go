package swarm

import (
	"bytes"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/swarm/dashboard"
)

// What a host prints passes through escaped, its lines kept, a character cut in two by the
// writes put together again.
func TestEscapingKeepsLinesAndEscapesTheRest(t *testing.T) {
	var out bytes.Buffer
	e := escapeTo(&out)
	text := "w1: running ✓\n\x1b]2;pwned\x07done\n"
	cut := strings.Index(text, "✓") + 1
	for _, part := range []string{text[:cut], text[cut:]} {
		if n, err := e.Write([]byte(part)); n != len(part) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	e.Flush()
	if want := "w1: running ✓\n\\x1b]2;pwned\\x07done\n"; out.String() != want {
		t.Errorf("escaped %q, want %q", out.String(), want)
	}
	out.Reset()
	_, _ = e.Write([]byte("end \xe2\x9c"))
	if out.String() != "end " {
		t.Errorf("an incomplete character was passed on: %q", out.String())
	}
	e.Flush()
	if out.String() != "end \ufffd\ufffd" {
		t.Errorf("an incomplete character at the end: %q", out.String())
	}
}

// A host's workers whose names no command could take are left out, said escaped; the rest are
// kept as the host said them.
func TestAcceptWorkersLeavesOutBadNames(t *testing.T) {
	workers := []workerJSON{{Name: "w1"}, {Name: "w1\x1b]2;pwned\x07"}, {Name: "a\nb"}, {Name: "w3", State: "running\x1b[2J"}}
	kept, left := acceptWorkers("h1", workers)
	if len(kept) != 2 || kept[0].Name != "w1" || kept[1].Name != "w3" {
		t.Fatalf("kept %+v", kept)
	}
	if strings.ContainsAny(left, "\x1b\x07\n") || !strings.HasPrefix(left, "h1 named 2 workers no command can take, left out (") ||
		!strings.Contains(left, `"w1\x1b]2;pwned\a"`) || !strings.Contains(left, `"a\nb"`) {
		t.Errorf("left = %q", left)
	}
	if _, left := acceptWorkers("h1", []workerJSON{{Name: "ok"}}); left != "" {
		t.Errorf("nothing left out, yet %q", left)
	}
	many := []workerJSON{{Name: "-1"}, {Name: "-2"}, {Name: "-3"}, {Name: "-4"}}
	if _, left := acceptWorkers("h1", many); !strings.HasPrefix(left, "h1 named 4 workers") || !strings.HasSuffix(left, "; ...)") {
		t.Errorf("four left out: %q", left)
	}
}

func TestAcceptRowsNamesThemForCommandsHere(t *testing.T) {
	rows := []dashboard.Row{{Name: "w1", State: "idle\x1b[2J", Tags: []string{"t\x07"}}, {Name: "../x"}}
	kept, left := acceptRows("h1", rows)
	if len(kept) != 1 || kept[0].Name != "w1@h1" || kept[0].Host != "h1" || kept[0].State != `idle\x1b[2J` || kept[0].Tags[0] != `t\x07` {
		t.Fatalf("kept %+v", kept)
	}
	if !strings.HasPrefix(left, "h1 named 1 worker ") {
		t.Errorf("left = %q", left)
	}
}
