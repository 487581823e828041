package swarm

import (
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
)

func TestEventLinesAlignAndSayTheDetails(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 3, 4, 0, time.Local)
	cost := 1.5
	var out strings.Builder
	p := &eventsPrinter{out: &out}
	err := p.print([]eventlog.Event{
		{ID: 9, Time: at, Kind: eventlog.IterationEnded, Worker: "w1", Iteration: 3, How: "failed", Reason: "exit 1"},
		{ID: 10, Time: at, Kind: eventlog.Landed, Host: "box", Worker: "builder", Branch: "swarm/builder", Commit: "0123456789abcdef0123"},
		{ID: 11, Time: at, Kind: eventlog.CostBudget, Worker: "w1", CostUSD: &cost},
		{ID: 12, Time: at, Kind: eventlog.HostUnreachable, Detail: "box"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "" +
		"#9   05-01 12:03:04  local  w1       iteration.ended   iteration 3, failed, exit 1\n" +
		"#10  05-01 12:03:04  box    builder  land.landed       swarm/builder, 0123456789ab\n" +
		"#11  05-01 12:03:04  local  w1       cost.budget       $1.50\n" +
		"#12  05-01 12:03:04  local  -        host.unreachable  box\n"
	if out.String() != want {
		t.Fatalf("printed\n%s\nwant\n%s", out.String(), want)
	}
}

// An agent's words never reach the terminal raw, and a line never passes its width.
func TestEventLinesAreEscapedAndFitTheTerminal(t *testing.T) {
	var out strings.Builder
	p := &eventsPrinter{out: &out, width: 40}
	_ = p.print([]eventlog.Event{{ID: 1, Time: time.Now(), Kind: eventlog.PersonNeeded, Worker: "w1",
		What: "dialog", Detail: "trust \x1b]0;pwned\x07\x1b[2J this folder, and a long tail of words"}})
	line := strings.TrimSuffix(out.String(), "\n")
	if strings.ContainsAny(line, "\x1b\x07") {
		t.Fatalf("raw escapes: %q", line)
	}
	if n := len([]rune(line)); n != 40 || !strings.HasSuffix(line, "…") {
		t.Fatalf("%d wide: %q", n, line)
	}
	out.Reset()
	p = &eventsPrinter{out: &out}
	_ = p.print([]eventlog.Event{{ID: 1, Kind: eventlog.PersonNeeded, What: "dialog", Detail: "a \x1b[2J b"}})
	if !strings.Contains(out.String(), `dialog, a \x1b[2J b`) {
		t.Fatalf("off a terminal, escaped and whole: %q", out.String())
	}
}

// Columns grow with what comes, never shrink: a follow's lines stay aligned with the first.
func TestEventColumnsGrowAsEventsCome(t *testing.T) {
	var out strings.Builder
	p := &eventsPrinter{out: &out}
	_ = p.print([]eventlog.Event{{ID: 1, Kind: eventlog.LoopDone, Worker: "long-name"}})
	_ = p.print([]eventlog.Event{{ID: 2, Kind: eventlog.LoopDone, Worker: "w"}})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if strings.Index(lines[0], "loop.done") != strings.Index(lines[1], "loop.done") {
		t.Fatalf("not aligned:\n%s", out.String())
	}
}

func TestEventJSONIsOneObjectALine(t *testing.T) {
	var out strings.Builder
	p := &eventsPrinter{out: &out, json: true}
	_ = p.print([]eventlog.Event{{ID: 3, Time: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), Kind: eventlog.LoopDone, Host: "local", Worker: "w1", Detail: "\x1b"}})
	want := `{"id":3,"time":"2026-05-01T12:00:00Z","kind":"loop.done","host":"local","worker":"w1","detail":"\u001b"}` + "\n"
	if out.String() != want {
		t.Fatalf("got %s want %s", out.String(), want)
	}
}
