package egress

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func refusalAt(i int) Refusal {
	return Refusal{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(i) * time.Second),
		Host: "evil.example.com", Port: 443 + i%2, Why: WhyNotAllowed}
}

func TestRefusalLogReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "refusals.jsonl")
	l := refusalLog{path: path}
	for i := range 5 {
		l.append(refusalAt(i))
	}
	got, total, err := ReadRefusals(path, 2)
	if err != nil || total != 5 || len(got) != 2 {
		t.Fatalf("ReadRefusals = %v, %d, %v; want the last 2 of 5", got, total, err)
	}
	if got[0] != refusalAt(3) || got[1] != refusalAt(4) {
		t.Errorf("last two = %+v, want %+v and %+v", got, refusalAt(3), refusalAt(4))
	}
	data, _ := os.ReadFile(path)
	first := strings.SplitN(string(data), "\n", 2)[0]
	want := `{"time":"2026-01-02T03:04:05Z","host":"evil.example.com","port":443,"why":"not in the allowlist"}`
	if first != want {
		t.Errorf("line = %s\nwant   %s", first, want)
	}
	if all, _, _ := ReadRefusals(path, -1); len(all) != 5 {
		t.Errorf("n < 0 gives %d refusals, want all 5", len(all))
	}
	if none, total, _ := ReadRefusals(path, 0); none != nil || total != 5 {
		t.Errorf("n = 0 gives %v, %d; want none of 5", none, total)
	}
}

func TestReadRefusalsMissingAndTorn(t *testing.T) {
	dir := t.TempDir()
	got, total, err := ReadRefusals(filepath.Join(dir, "none.jsonl"), 10)
	if got != nil || total != 0 || err != nil {
		t.Errorf("a missing log: %v, %d, %v", got, total, err)
	}
	path := filepath.Join(dir, "torn.jsonl")
	text := `{"time":"2026-01-02T03:04:05Z","host":"a.example\u001b[31m","port":80,"why":"not in the allowlist"}` + "\n" +
		"not json\n" + `{"time":"2026-01-02T03:04:06Z","host":"b.exa`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	got, total, err = ReadRefusals(path, 10)
	if err != nil || total != 1 || len(got) != 1 {
		t.Fatalf("ReadRefusals = %v, %d, %v; want the one whole refusal", got, total, err)
	}
	if got[0].Host != "a.example?[31m" {
		t.Errorf("host = %q, want its escape made harmless", got[0].Host)
	}
}

func TestRefusalLogStopsAtItsLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "refusals.jsonl")
	l := refusalLog{path: path}
	n := 0
	for ; !l.full; n++ {
		l.append(refusalAt(n))
	}
	for i := range 100 {
		l.append(refusalAt(n + i))
	}
	info, err := os.Stat(path)
	if err != nil || info.Size() > LogMax {
		t.Fatalf("log is %d bytes (%v), at most %d", info.Size(), err, LogMax)
	}
	again := refusalLog{path: path} // the next iteration's proxy
	again.append(refusalAt(0))
	data, _ := os.ReadFile(path)
	if c := bytes.Count(data, []byte(logFullWhy)); c != 1 {
		t.Errorf("the log says it is full %d times, want once", c)
	}
	got, total, err := ReadRefusals(path, 2)
	if err != nil || total != n-1 {
		t.Fatalf("ReadRefusals: total %d (%v), want %d", total, err, n-1)
	}
	last := got[len(got)-1]
	if last.Host != "" || last.Why != logFullWhy || got[0].Host == "" {
		t.Errorf("last two = %+v, want a refusal then the line saying the log is full", got)
	}
}

func TestPrintable(t *testing.T) {
	if got := printable("ok.example\x00\n\x7fé"); got != "ok.example?????" {
		t.Errorf("printable = %q", got)
	}
	if got := printable(strings.Repeat("a", 1000)); len(got) != MaxEntryLen {
		t.Errorf("printable keeps %d bytes, want %d", len(got), MaxEntryLen)
	}
}
