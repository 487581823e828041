package dashboard

import (
	"reflect"
	"testing"
	"time"
)

// How much a row needs a person, from its state's words (and its tone for words not known).
func TestDashboardAttentionOf(t *testing.T) {
	for _, c := range []struct {
		state string
		tone  Tone
		want  attention
	}{
		{"failed (consecutive_failures)", ToneBad, attnFailed},
		{"stopped (exit 1)", ToneBad, attnFailed},
		{"stopped (exit 137)", ToneBad, attnFailed},
		{"orphaned", ToneBad, attnFailed},
		{"blocked: trust-folder", ToneWarn, attnNeeds}, // the words of an older swarm
		{"waiting: limit until 19:30", ToneWarn, attnNeeds},
		{"backoff 8s", ToneWarn, attnNeeds},
		{"working", ToneBusy, attnActive},
		{"starting", ToneBusy, attnActive},
		{"idle", ToneQuiet, attnActive},
		{"running", ToneBusy, attnActive},
		{"paused", ToneQuiet, attnPaused},
		{"done", ToneGood, attnEnded},
		{"stopped (max_iterations)", ToneQuiet, attnEnded},
		{"stopped", ToneQuiet, attnEnded},
		{"stopped (exit 0)", ToneQuiet, attnEnded},
		{"killed", ToneQuiet, attnEnded},
		// Where the branch stands in the merge queue: landed is an end like any; sent back asks
		// for a look.
		{"stopped (exit 0) · landed abc1234", ToneQuiet, attnEnded},
		{"done · landed abc1234", ToneGood, attnEnded},
		{"done · queued", ToneGood, attnEnded},
		{"stopped (exit 0) · sent back: needs rebase", ToneWarn, attnNeeds},
		{"stopped (max_iterations) · breaks tests", ToneWarn, attnNeeds},
		{"stopped (exit 1) · landed abc1234", ToneBad, attnFailed},
		{"working · sent back: needs rebase", ToneBusy, attnActive},
		{"blocked (dialog: trust-folder)", ToneWarn, attnNeeds},
		{"blocked (permission: Bash)", ToneWarn, attnNeeds},
		// Words not known yet: the tone says how much it matters.
		{"stuck: dialog", ToneBad, attnFailed},
		{"needs you", ToneWarn, attnNeeds},
		{"finished", ToneGood, attnEnded},
		{"thinking", ToneBusy, attnActive},
	} {
		if got := attentionOf(Row{State: c.state, Tone: c.tone}); got != c.want {
			t.Errorf("%q (tone %d): %d, want %d", c.state, c.tone, got, c.want)
		}
	}
}

func sortedNames(rows []Row, s Sort) []string {
	rows = append([]Row{}, rows...)
	sortRows(rows, s)
	var names []string
	for _, r := range rows {
		names = append(names, r.Name)
	}
	return names
}

// The golden rows are read in the order they were started.
func startedRows() []Row {
	rows := goldenRows()
	for i := range rows {
		rows[i].Started = frameNow.Add(time.Duration(i) * time.Minute)
	}
	return rows
}

func TestDashboardSortOrders(t *testing.T) {
	for _, c := range []struct {
		sort Sort
		want []string
	}{
		// Failed first, then blocked and waiting, then working; done last; by name within each.
		{sortAttention, []string{"a-very-long-worker-name-that-is-cut", "fix-42", "inbox", "builder", "tests", "planner"}},
		{sortName, []string{"a-very-long-worker-name-that-is-cut", "builder", "fix-42", "inbox", "planner", "tests"}},
		{sortStarted, []string{"builder", "planner", "fix-42", "inbox", "tests", "a-very-long-worker-name-that-is-cut"}},
	} {
		// Rows read in another order end in the same one.
		rows := startedRows()
		reversed := append([]Row{}, rows...)
		for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
			reversed[i], reversed[j] = reversed[j], reversed[i]
		}
		for _, in := range [][]Row{rows, reversed} {
			if got := sortedNames(in, c.sort); !reflect.DeepEqual(got, c.want) {
				t.Errorf("by %s: %q, want %q", c.sort, got, c.want)
			}
		}
	}
}

func TestDashboardParseSort(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    Sort
		wantErr string
	}{
		{"attention", sortAttention, ""},
		{"name", sortName, ""},
		{"Started", sortStarted, ""},
		{"size", 0, "--sort must be one of attention, name, started, not 'size'"},
	} {
		got, err := ParseSort(c.in)
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("%q: error %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// The sort key turns the order round: attention, name, started, attention.
func TestDashboardSortNext(t *testing.T) {
	for _, c := range []struct{ from, want Sort }{
		{sortAttention, sortName}, {sortName, sortStarted}, {sortStarted, sortAttention},
	} {
		if got := c.from.next(); got != c.want {
			t.Errorf("after %s: %s, want %s", c.from, got, c.want)
		}
	}
}
