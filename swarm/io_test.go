package swarm

import (
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

func TestPeekShowsTheLastLinesWithoutPadding(t *testing.T) {
	te := newTestEnv(t)
	te.spawn("w1", "one\ntwo\nthree\n\n\n")
	if err := runPeek(te.env, peekOptions{Names: []string{"w1"}, Lines: 2}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "two\nthree\n" {
		t.Errorf("peek printed %q", got)
	}
}

func TestPeekOfSeveralWorkersHasHeaders(t *testing.T) {
	te := newTestEnv(t)
	te.spawn("a", "from a")
	te.spawn("b", "from b")
	if err := runPeek(te.env, peekOptions{All: true, Lines: 5}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "=== a ===\nfrom a\n\n=== b ===\nfrom b\n" {
		t.Errorf("peek --all printed %q", got)
	}
}

func TestPeekErrors(t *testing.T) {
	te := newTestEnv(t)
	wantErr(t, peekOptions{Lines: 0}.check(), 1, "-n must be a positive number of lines")
	wantErr(t, runPeek(te.env, peekOptions{Names: []string{"ghost"}, Lines: 3}), 2, "no worker named 'ghost'")
	wantErr(t, runPeek(te.env, peekOptions{Lines: 3}), 1, "no worker name given (or use --all)")
	wantErr(t, runPeek(te.env, peekOptions{Names: []string{"a"}, All: true, Lines: 3}), 1, "give worker names or --all, not both")
	wantErr(t, runPeek(te.env, peekOptions{Names: []string{"../x"}, Lines: 3}), 1, "invalid worker name '../x'")
}

func TestSendClearsPastesAndSubmits(t *testing.T) {
	te := newTestEnv(t)
	w := te.spawn("w1", "❯ ")
	text := "run $(tests); `x` 'q' \"d\"\nsecond line"
	if err := runSend(te.env, sendOptions{Args: []string{"w1", text}}); err != nil {
		t.Fatal(err)
	}
	want := []tmuxtest.Input{{PaneID: w.Tmux.PaneID, Text: "C-u"}, {PaneID: w.Tmux.PaneID, Paste: true, Bracketed: true, Text: text},
		{PaneID: w.Tmux.PaneID, Text: "Enter"}}
	if got := te.Fake.Inputs(); !reflect.DeepEqual(got, want) {
		t.Errorf("inputs %+v\nwant %+v", got, want)
	}
	if got := te.output(); got != "sent to w1\n" {
		t.Errorf("printed %q", got)
	}
}

func TestSendRawWithoutEnter(t *testing.T) {
	te := newTestEnv(t)
	w := te.spawn("w1", "❯ ")
	if err := runSend(te.env, sendOptions{Args: []string{"w1", "draft"}, Raw: true, NoEnter: true}); err != nil {
		t.Fatal(err)
	}
	want := []tmuxtest.Input{{PaneID: w.Tmux.PaneID, Paste: true, Text: "draft"}}
	if got := te.Fake.Inputs(); !reflect.DeepEqual(got, want) {
		t.Errorf("inputs %+v, want only the unbracketed paste", got)
	}
}

func TestSendReadsStandardInputAndGoesToAll(t *testing.T) {
	te := newTestEnv(t)
	te.spawn("a", "")
	te.spawn("b", "")
	err := runSend(te.env, sendOptions{Args: []string{"-"}, All: true, NoEnter: true, Stdin: strings.NewReader("from stdin\n")})
	if err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "sent to a\nsent to b\n" {
		t.Errorf("printed %q", got)
	}
	for _, id := range te.Fake.PaneIDs() {
		if p := te.Fake.Pastes(id); len(p) != 1 || p[0] != "from stdin\n" {
			t.Errorf("pane %s got %q", id, p)
		}
	}
}

func TestSendErrors(t *testing.T) {
	te := newTestEnv(t)
	w := te.spawn("w1", "")
	te.exit(w, 0)
	wantErr(t, runSend(te.env, sendOptions{Args: []string{"w1"}}), 1, "usage: swarm send NAME TEXT")
	wantErr(t, runSend(te.env, sendOptions{All: true}), 1, "usage: swarm send --all TEXT")
	wantErr(t, runSend(te.env, sendOptions{Args: []string{"w1", "x"}}), 1, "worker 'w1' is not running")
	wantErr(t, runSend(te.env, sendOptions{Args: []string{"nope", "x"}}), 2, "no worker named 'nope'")
}

func TestInterruptAndEOFPressKeys(t *testing.T) {
	te := newTestEnv(t)
	w := te.spawn("w1", "")
	if err := runInterrupt(te.env, interruptOptions{Names: []string{"w1"}}); err != nil {
		t.Fatal(err)
	}
	if err := runEOF(te.env, eofOptions{Args: []string{"w1"}}); err != nil {
		t.Fatal(err)
	}
	if got := te.Fake.Keys(w.Tmux.PaneID); !reflect.DeepEqual(got, []string{"C-c", "C-d"}) {
		t.Errorf("keys %q", got)
	}
	if got := te.output(); got != "interrupted w1\nsent EOF to w1\n" {
		t.Errorf("printed %q", got)
	}
	te.exit(w, 1)
	wantErr(t, runInterrupt(te.env, interruptOptions{Names: []string{"w1"}}), 1, "worker 'w1' is not running")
	wantErr(t, runEOF(te.env, eofOptions{Args: []string{"w1"}}), 1, "worker 'w1' is not running")
	wantErr(t, eofOptions{}.check(), 1, "usage: swarm eof NAME")
}

func TestAttachNeedsATerminal(t *testing.T) {
	te := newTestEnv(t)
	te.spawn("w1", "")
	wantErr(t, runAttach(te.env, attachOptions{Args: []string{"w1"}}), 1,
		"attach needs a terminal; use 'swarm peek w1' or 'swarm logs w1 --follow' instead, or attach from a terminal by hand: tmux -L ")
	wantErr(t, attachOptions{}.check(), 1, "usage: swarm attach NAME")
	wantErr(t, runAttach(te.env, attachOptions{Args: []string{"ghost"}}), 2, "no worker named 'ghost'")
}

func TestLogsPrintsTheScreenAndChecksFlags(t *testing.T) {
	te := newTestEnv(t)
	te.spawn("w1", "a\nb\nc\n\n")
	if err := runLogs(te.env, logsOptions{Args: []string{"w1"}, Lines: 2}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "b\nc\n" {
		t.Errorf("logs printed %q", got)
	}
	wantErr(t, runLogs(te.env, logsOptions{Args: []string{"w1"}, Stderr: true}), 1, "--stderr is for process workers")
	wantErr(t, logsOptions{Args: []string{"w1"}, Lines: -1}.check(), 1, "--lines must not be negative")
	wantErr(t, logsOptions{}.check(), 1, "usage: swarm logs NAME")
}
