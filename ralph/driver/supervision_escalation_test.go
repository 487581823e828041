package driver

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
)

// supervisionWebhook is an escalation endpoint that records what it is sent.
type supervisionWebhook struct {
	srv    *httptest.Server
	mu     sync.Mutex
	posts  []supervisionPost
	status int
}

type supervisionPost struct {
	method, contentType string
	body                []byte
}

func newSupervisionWebhook(t *testing.T, status int) *supervisionWebhook {
	w := &supervisionWebhook{status: status}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		w.posts = append(w.posts, supervisionPost{method: r.Method, contentType: r.Header.Get("Content-Type"), body: body})
		w.mu.Unlock()
		rw.WriteHeader(w.status)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

func (w *supervisionWebhook) received() []supervisionPost {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]supervisionPost(nil), w.posts...)
}

// supervisionFailingWithLastWords exits 1 after printing a line the escalation should carry.
func supervisionFailingWithLastWords(tn turn) {
	tn.p.SetScreen(claudeIdle(append(echo(tn.prompt), "", fmt.Sprintf("● Error: cannot reach the build cache (iteration %d)", tn.it))...))
	tn.p.Exit(1)
}

func TestSupervisionEscalationWebhook(t *testing.T) {
	t.Run("posts the report", func(t *testing.T) {
		hook := newSupervisionWebhook(t, http.StatusOK)
		h := supervisionHarness(t, setup{max: 10}, agentScript{submit: supervisionFailingWithLastWords},
			ralph.SupervisionConfig{Enabled: true, MaxFailures: 2, RetryBackoffSeconds: 1, HangTimeoutSeconds: 300, Webhook: hook.srv.URL}, nil)
		if code := h.run(h.config()); code != 1 {
			t.Errorf("Run = %d, want 1", code)
		}
		h.wantState(h.state(), ralph.StatusFailed, "consecutive_failures", 2)
		wantSupervisionLines(h, "agent exited (exit 1) — retrying in 1s (attempt 1/2)", "Restarting the agent (iteration 2/10)...",
			"2 consecutive failures (last exit: 1) — escalated to webhook")
		posts := hook.received()
		if len(posts) != 1 {
			t.Fatalf("%d webhook posts, want 1", len(posts))
		}
		p := posts[0]
		if p.method != http.MethodPost || p.contentType != "application/json" {
			t.Errorf("webhook got %s with Content-Type %q, want a JSON POST", p.method, p.contentType)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(p.body, &raw); err != nil {
			t.Fatalf("webhook body is not a JSON object: %v\n%s", err, p.body)
		}
		for _, k := range []string{"worker", "iteration", "reason", "status", "last_lines"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("webhook body lacks %q: %s", k, p.body)
			}
		}
		if ll := strings.TrimSpace(string(raw["last_lines"])); !strings.HasPrefix(ll, "[") {
			t.Errorf("last_lines is %s, want an array", ll)
		}
		var e Notification
		if err := json.Unmarshal(p.body, &e); err != nil {
			t.Fatal(err)
		}
		if e.Worker != loopName || e.Iteration != 2 || e.Status != ralph.StatusFailed.String() || e.Reason != "2 consecutive failures (last exit: 1): ● Error: cannot reach the build cache (iteration 2)" {
			t.Errorf("webhook body %+v, want worker %q, iteration 2, status failed, the failure count and the agent's last word as reason", e, loopName)
		}
		if !contains(e.LastLines, "● Error: cannot reach the build cache (iteration 2)") {
			t.Errorf("last_lines %q lack the failed agent's last output", e.LastLines)
		}
		if rs := h.dir.LoadSupervision(); rs.Escalations != 1 {
			t.Errorf("regent-state escalations %d, want 1", rs.Escalations)
		}
	})

	t.Run("endpoint answers 500", func(t *testing.T) {
		hook := newSupervisionWebhook(t, http.StatusInternalServerError)
		h := supervisionHarness(t, setup{max: 10}, agentScript{submit: supervisionFailingWithLastWords},
			ralph.SupervisionConfig{Enabled: true, MaxFailures: 2, RetryBackoffSeconds: 1, HangTimeoutSeconds: 300, Webhook: hook.srv.URL}, nil)
		if code := h.run(h.config()); code != 1 {
			t.Errorf("Run = %d, want 1", code)
		}
		h.wantLines(
			"iteration 1 failed (exit: 1), retrying in 1s (attempt 1/2)",
			"starting iteration 2/10",
			"2 consecutive failures, stopping loop",
		)
		supervisionWantOut(h, "webhook failed", "500")
		h.wantState(h.state(), ralph.StatusFailed, "consecutive_failures", 2)
		if n := len(hook.received()); n != 1 {
			t.Errorf("%d webhook posts, want 1", n)
		}
	})
}

func TestSupervisionDisabled(t *testing.T) {
	t.Run("no hang detection", func(t *testing.T) {
		h := supervisionHarness(t, setup{max: 1, inactivity: 1000}, agentScript{
			submit: func(tn turn) {
				supervisionAnimate(tn, supervisionHungScreen)
				// Three minutes: six hang timeouts, three iteration timeouts.
				tn.exitAfter(3*time.Minute, 0, claudeIdle(append(echo(tn.prompt), "", "● Finally done.")...))
			},
		}, ralph.SupervisionConfig{Enabled: false, HangTimeoutSeconds: 30, IterationTimeout: 60}, nil)
		if code := h.run(h.config()); code != 0 {
			t.Errorf("Run = %d, want 0", code)
		}
		// Unsupervised, the animated agent runs until it exits by itself.
		h.wantLines(
			"iteration 1 completed (exit: 0, duration: 3m 0s)",
			"max iterations (1) reached",
		)
		supervisionWantNotOut(h, "hung", "exceeded")
		if k := h.procs.liveKills(); len(k) != 0 {
			t.Errorf("live kills %+v, want none", k)
		}
		if rs := h.dir.LoadSupervision(); rs.Hangs != 0 {
			t.Errorf("regent-state hangs %d, want 0", rs.Hangs)
		}
	})

	t.Run("max failures defaults to 5", func(t *testing.T) {
		hook := newSupervisionWebhook(t, http.StatusOK)
		h := supervisionHarness(t, setup{max: 10}, agentScript{submit: exitOnSubmit(1)},
			ralph.SupervisionConfig{Enabled: false, RetryBackoffSeconds: 7, Webhook: hook.srv.URL}, nil)
		if code := h.run(h.config()); code != 1 {
			t.Errorf("Run = %d, want 1", code)
		}
		h.wantLines(fiveFailureLines...)
		st := h.state()
		h.wantState(st, ralph.StatusFailed, "consecutive_failures", 5)
		supervisionWantFailures(h, st, 5, 5)
		// Supervision's own backoff and webhook are off with it.
		if got, want := h.clock.waits(ralph.PhaseBackoff), durations(1, 2, 4, 8); !reflect.DeepEqual(got, want) {
			t.Errorf("backoff waits %v, want %v", got, want)
		}
		if n := len(hook.received()); n != 0 {
			t.Errorf("%d webhook posts from an unsupervised loop, want 0", n)
		}
	})
}
