package state

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// The file put together record by record is the one json.MarshalIndent writes for the whole:
// other versions, and the Python swarm, read it.
func TestStateFileIsMarshalIndentOfTheWhole(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	code := 3
	sets := map[string]*Workers{
		"none": {byName: map[string]*Worker{}},
		"one":  {byName: map[string]*Worker{"a": {Name: "a", Started: start}}},
		"several": {byName: map[string]*Worker{
			"a": {Name: "a", Started: start, Cmd: []string{"sh", "-c", "a < b && c > d"}, Env: map[string]string{"Z": "1", "A": "é\u2028"}},
			"b": {Name: "b", Started: start.Add(time.Second), Tmux: &TmuxInfo{Session: "s", PaneID: "%1"}, ExitCode: &code,
				Metadata: map[string]any{"ralph": true, "n": 3, "nested": map[string]any{"x": []any{1, "two"}}}},
		}},
		"kept as read": {byName: map[string]*Worker{"a": {Name: "a"}},
			unreadable: []json.RawMessage{json.RawMessage(" {\"name\": 7,\n\t\"x\":[1, {\"y\" :null}]}"), json.RawMessage(`[]`)}},
	}
	for label, ws := range sets {
		records := []any{}
		for _, w := range ws.List() {
			records = append(records, w)
		}
		for _, raw := range ws.unreadable {
			records = append(records, raw)
		}
		want, err := json.MarshalIndent(map[string]any{"workers": records}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		got, encoded, err := ws.encode(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: put together:\n%s\nMarshalIndent:\n%s", label, got, want)
		}
		// Taken again from the encodings, it is the same file.
		again, _, err := ws.encode(encoded)
		if err != nil || !bytes.Equal(again, want) {
			t.Errorf("%s: from the encodings:\n%s (%v)", label, again, err)
		}
	}
}

// A record found in known is taken from there, not encoded again.
func TestEncodeTakesKnownRecords(t *testing.T) {
	a, b := &Worker{Name: "a"}, &Worker{Name: "b"}
	ws := &Workers{byName: map[string]*Worker{"a": a, "b": b}}
	got, encoded, err := ws.encode(map[*Worker]string{a: `{"name": "as known"}`})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte(`{"name": "as known"}`)) || encoded[a] != `{"name": "as known"}` {
		t.Errorf("the known encoding was not used:\n%s", got)
	}
	if want, _ := encodeRecord(b); encoded[b] != want {
		t.Errorf("b encoded as %q, want %q", encoded[b], want)
	}
}
