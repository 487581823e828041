package swarm

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/swarm/dashboard"
	"github.com/swarm-dev/swarm/swarm/remote"
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

// A host that does not answer is shown from what was last seen of it, with the workers
// spawned there from here since, all unreachable.
func TestLastSeenWorkersAddsTheSpawnedOnes(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	seen := remote.Seen{At: "2026-01-02T03:00:00Z", Workers: json.RawMessage(`[{"name":"w1","state":"blocked","needs_person":{"what":"x"}}]`),
		Spawned: []remote.Spawned{
			{Name: "w2", At: at.Format(time.RFC3339Nano), Worker: json.RawMessage(`{"name":"w2","state":"running","tags":["night"]}`)},
			{Name: "bad", At: at.Format(time.RFC3339Nano), Worker: json.RawMessage(`{"name":"b\nad"}`)},
		}}
	workers, last := lastSeenWorkers(seen)
	if last != seen.At || len(workers) != 2 {
		t.Fatalf("workers %+v, last seen %s", workers, last)
	}
	for _, w := range workers {
		if w.State != "unreachable" || w.NeedsPerson != nil {
			t.Errorf("%s: state %s, needs %v", w.Name, w.State, w.NeedsPerson)
		}
	}
	if workers[0].LastSeen != "2026-01-02T03:00:00Z" || workers[1].LastSeen != "2026-01-02T03:04:05Z" || workers[1].Tags[0] != "night" {
		t.Errorf("last seen %s and %s, %+v", workers[0].LastSeen, workers[1].LastSeen, workers[1])
	}
}

// The dashboard reads the hosts again at every round: a host added while it runs is asked with
// the next one, and one that does not answer is shown from what was last seen of it.
func TestFleetWatchFindsAHostAddedWhileItRuns(t *testing.T) {
	root := t.TempDir()
	// Asking the host makes its connection's directory, under /tmp for a root this long.
	t.Cleanup(func() {
		_ = os.RemoveAll(remote.ControlDir(root))
		_ = os.Remove(filepath.Dir(remote.ControlDir(root))) // only when no one else uses it
	})
	t.Setenv(remote.SSHCommandVar, "false")
	f := &fleetWatch{root: root, seen: map[string]hostRows{}}
	if rows, _, hosts := f.rows(time.Now()); hosts != 0 || len(rows) != 0 {
		t.Fatalf("no host yet: %d rows, %d hosts", len(rows), hosts)
	}
	reg := remote.RegistryOf(root)
	if err := reg.Put(remote.Host{Name: "h1", Address: "127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	w, _ := json.Marshal(workerJSON{Name: "w1", Metadata: map[string]any{"ralph": true}})
	if err := reg.AddSpawned("h1", "w1", time.Now(), w); err != nil {
		t.Fatal(err)
	}
	f.ask()
	rows, trouble, hosts := f.rows(time.Now())
	if hosts != 1 || len(rows) != 1 || rows[0].Name != "w1@h1" || rows[0].Kind != "loop" || !strings.HasPrefix(rows[0].State, "unreachable (seen") {
		t.Fatalf("after the host was added: %d hosts, rows %+v", hosts, rows)
	}
	if len(trouble) != 1 || !strings.HasPrefix(trouble[0], "h1: ") {
		t.Errorf("trouble %q", trouble)
	}
}
