package driver

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
)

// The user's [notify] table, overridden by the project's per key, then by --notify values.
func TestResolveNotifyLayered(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	write(t, filepath.Join(home, ".config", "swarm", "config.toml"),
		"[notify]\ndesktop = true\nwebhook = \"https://user.example/hook\"\nevents = [\"done\", \"failed\"]\n")
	write(t, filepath.Join(project, config.ProjectConfigName), "[notify]\nwebhook = \"https://project.example/hook\"\n")
	allowForTest(t, filepath.Join(project, config.ProjectConfigName))
	got, err := ralph.ResolveNotify(config.Load(project), []string{"tmux", "command=./tell.sh"})
	want := config.Notify{Desktop: true, Tmux: true, Webhook: "https://project.example/hook", Command: "./tell.sh",
		Events: []string{"done", "failed"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("ResolveNotify = %+v, %v; want %+v", got, err, want)
	}
	if got, err := ralph.ResolveNotify(config.Load(project), []string{"off", "https://flag.example/x"}); err != nil ||
		!reflect.DeepEqual(got, config.Notify{Webhook: "https://flag.example/x"}) {
		t.Errorf("off then a URL = %+v, %v; want only the URL's webhook", got, err)
	}
}

func TestNotifySpecErrors(t *testing.T) {
	for spec, want := range map[string]string{
		"email":             "invalid --notify 'email' (expected desktop, tmux, webhook=URL, command=CMD, events=LIST or off)",
		"webhook=ftp://x":   "invalid notify webhook 'ftp://x' (expected an http:// or https:// URL)",
		"events=done,later": "unknown notify event 'later' (known: done, stopped, failed, stagnated, blocked, permission, usage_limit, budget, resurrected, rollback)",
	} {
		if _, err := ralph.ResolveNotify(config.Load(t.TempDir()), []string{spec}); err == nil || err.Error() != want {
			t.Errorf("--notify %s: error %v; want %q", spec, err, want)
		}
	}
}

// A slow channel holds up neither the loop (add returns at once) nor the notifications'
// order: they go out one after another as they came.
func TestNotifierDeliversInOrderWithoutBlocking(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var got []string
	q := &notifier{failed: func(string, Notification, error) {}}
	slow := channel{name: "webhook", send: func(n Notification) error {
		<-release
		mu.Lock()
		got = append(got, n.Event)
		mu.Unlock()
		return nil
	}}
	start := time.Now()
	for _, ev := range []string{ralph.NotifyRollback, ralph.NotifyFailed} {
		q.add(delivery{note: Notification{Event: ev}, channels: []channel{slow}})
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("add took %v with the channel stuck; it must not wait for it", d)
	}
	if q.wait(50 * time.Millisecond) {
		t.Fatal("wait reported everything sent while the channel was stuck")
	}
	close(release)
	if !q.wait(5 * time.Second) {
		t.Fatal("notifications not sent 5s after the channel came back")
	}
	if !reflect.DeepEqual(got, []string{ralph.NotifyRollback, ralph.NotifyFailed}) {
		t.Errorf("delivered %v, want rollback then failed", got)
	}
}

// Behind a dead endpoint the queue is bounded: what does not fit is dropped, and said.
func TestNotifierDropsBeyondItsQueue(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var mu sync.Mutex
	dropped := 0
	q := &notifier{failed: func(ch string, _ Notification, err error) {
		mu.Lock()
		defer mu.Unlock()
		if ch == "all" && strings.Contains(err.Error(), "dropped") {
			dropped++
		}
	}}
	started := make(chan struct{}, maxQueued+3)
	stuck := channel{name: "webhook", send: func(Notification) error {
		started <- struct{}{}
		<-release
		return errors.New("gone")
	}}
	note := delivery{note: Notification{Event: ralph.NotifyBlocked}, channels: []channel{stuck}}
	q.add(note)
	<-started
	for range maxQueued + 2 {
		q.add(note)
	}
	mu.Lock()
	defer mu.Unlock()
	// One is being delivered, maxQueued wait: the rest are dropped.
	if dropped != 2 {
		t.Errorf("%d dropped, want 2", dropped)
	}
}

// A loop that gives up tells the tmux clients and supervision's webhook, each once, with the
// failed event; an endpoint that answers 500 is reported in the log, not retried.
func TestLoopNotifiesItsEnd(t *testing.T) {
	hook := newSupervisionWebhook(t, http.StatusInternalServerError)
	rc := ralph.SupervisionConfig{Enabled: true, MaxFailures: 2, RetryBackoffSeconds: 1, HangTimeoutSeconds: 300}
	h := supervisionHarness(t, setup{max: 10}, agentScript{submit: supervisionFailingWithLastWords}, rc, func(st *ralph.State) {
		st.Notify = &config.Notify{Tmux: true, Webhook: hook.srv.URL, Events: []string{ralph.NotifyFailed}}
	})
	if code := h.run(h.config()); code != 1 {
		t.Fatalf("Run = %d, want 1", code)
	}
	want := "swarm: " + loopName + " failed: 2 consecutive failures (last exit: 1): ● Error: cannot reach the build cache (iteration 2) (iteration 2)"
	if got := h.fake.Messages(); !reflect.DeepEqual(got, []string{want}) {
		t.Errorf("tmux messages %q, want %q", got, want)
	}
	posts := hook.received()
	if len(posts) != 1 || !strings.Contains(string(posts[0].body), `"event":"failed"`) {
		t.Fatalf("webhook posts %d (%s), want one failed event", len(posts), posts)
	}
	logged, _ := os.ReadFile(h.dir.IterationsLog())
	if !strings.Contains(string(logged), "[NOTIFY] notification failed to webhook failed: webhook answered 500") {
		t.Errorf("the failed delivery is not in the event log:\n%s", logged)
	}
}
