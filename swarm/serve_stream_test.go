package swarm

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
)

// The stream the server mounts reads this state directory's log; with no host recorded the
// hosts are not asked.
func TestEventStreamServesTheStateDirectory(t *testing.T) {
	root := t.TempDir()
	if names := (streamHosts{root: root}).Names(); len(names) != 0 {
		t.Fatalf("hosts %v in an empty state directory", names)
	}
	ts := httptest.NewServer(eventStream(root, t.Logf))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := (eventlog.Log{Root: root}).Append(eventlog.Event{Kind: eventlog.LoopDone, Worker: "w1"}); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "data: ") {
			if !strings.Contains(line, `"kind":"loop.done","host":"local","worker":"w1"`) {
				t.Fatalf("the event: %s", line)
			}
			return
		}
	}
	t.Fatalf("no event: %v", sc.Err())
}
