package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
)

// Delivering notifications: in the background, one loop's in the order they happened, each
// channel with a time limit of its own, so a slow or dead endpoint never holds the loop up.

// Notification is what a notification says: the webhook's JSON body, and the command's
// environment.
type Notification struct {
	Event     string   `json:"event"`
	Worker    string   `json:"worker"`
	Iteration int      `json:"iteration"`
	Reason    string   `json:"reason"`
	Status    string   `json:"status"`
	LastLines []string `json:"last_lines"`
	Time      string   `json:"time"`
}

// Title is the notification's headline: "swarm: w1 done".
func (n Notification) Title() string {
	return fmt.Sprintf("swarm: %s %s", n.Worker, strings.ReplaceAll(n.Event, "_", " "))
}

// Body is its text: the reason and the iteration.
func (n Notification) Body() string {
	return fmt.Sprintf("%s (iteration %d)", n.Reason, n.Iteration)
}

// Time limits of the channels.
const (
	webhookTimeout = 10 * time.Second
	commandTimeout = 30 * time.Second
	localTimeout   = 5 * time.Second // notify-send, osascript, tmux
	// maxQueued bounds a loop's notifications not yet delivered; beyond it they are dropped
	// (and that is said), rather than pile up behind a dead endpoint.
	maxQueued = 32
)

// channel is one place a notification goes.
type channel struct {
	name string // as the loop reports a failure: "webhook", "command", ...
	url  string // a webhook's address
	send func(Notification) error
	// after, when set, hears how it went instead of the notifier's failed (supervision's
	// escalation says either way in the log).
	after func(error)
}

// delivery is one notification with the channels it goes to.
type delivery struct {
	note     Notification
	channels []channel
}

// notifier delivers a loop's notifications one after another in a goroutine that runs while
// there are any.
type notifier struct {
	mu      sync.Mutex
	queue   []delivery
	running bool
	pending sync.WaitGroup
	// failed hears of a channel that could not deliver.
	failed func(channel string, n Notification, err error)
}

func (q *notifier) add(d delivery) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) >= maxQueued {
		q.failed("all", d.note, errors.New("too many notifications waiting; this one is dropped"))
		return
	}
	q.queue = append(q.queue, d)
	if !q.running {
		q.running = true
		q.pending.Add(1)
		go q.drain()
	}
}

func (q *notifier) drain() {
	defer q.pending.Done()
	for {
		q.mu.Lock()
		if len(q.queue) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		d := q.queue[0]
		q.queue = q.queue[1:]
		q.mu.Unlock()
		q.deliver(d)
	}
}

// deliver sends one notification to its channels at once and waits for them all.
func (q *notifier) deliver(d delivery) {
	var wg sync.WaitGroup
	for _, c := range d.channels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := c.send(d.note)
			switch {
			case c.after != nil:
				c.after(err)
			case err != nil:
				q.failed(c.name, d.note, err)
			}
		}()
	}
	wg.Wait()
}

// wait waits up to limit for the notifications under way, and reports whether they all went.
func (q *notifier) wait(limit time.Duration) bool {
	done := make(chan struct{})
	go func() { q.pending.Wait(); close(done) }()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// postJSON sends n to url as a JSON POST.
func postJSON(url string, n Notification) error {
	body, err := json.Marshal(n)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: webhookTimeout, CheckRedirect: keepFirstAnswer}
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return fmt.Errorf("webhook answered %s, redirecting to %q: not followed (set the webhook to the address it redirects to)",
			resp.Status, resp.Header.Get("Location"))
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("webhook answered %s", resp.Status)
	}
	return nil
}

// keepFirstAnswer makes a webhook's redirect an answer rather than a new request. Followed,
// a 301, 302 or 303 turns the POST into a GET without its body (the event is lost while the
// delivery looks fine), and a 307 or 308 sends the event to an address the user never
// configured; so a redirect is reported as a failed delivery that names where it pointed.
func keepFirstAnswer(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// runNotifyCommand runs the user's command with sh -c in dir, the notification in its
// environment (SWARM_EVENT, SWARM_WORKER, ... and all of it as JSON in SWARM_NOTIFICATION).
func runNotifyCommand(command, dir string, n Notification) error {
	body, _ := json.Marshal(n)
	env := append(os.Environ(), "SWARM_EVENT="+n.Event, "SWARM_WORKER="+n.Worker,
		fmt.Sprintf("SWARM_ITERATION=%d", n.Iteration), "SWARM_REASON="+n.Reason, "SWARM_STATUS="+n.Status,
		"SWARM_TIME="+n.Time, "SWARM_LAST_LINES="+strings.Join(n.LastLines, "\n"), "SWARM_NOTIFICATION="+string(body))
	return runBounded(shellRun{Dir: dir, Argv: []string{"sh", "-c", command}, Env: env, Timeout: commandTimeout})
}

// desktopNotify shows n on the desktop: notify-send (Linux, BSD) or osascript (macOS).
func desktopNotify(n Notification) error {
	var argv []string
	if p, err := exec.LookPath("notify-send"); err == nil {
		argv = []string{p, "--app-name=swarm", n.Title(), n.Body()}
	} else if p, err := exec.LookPath("osascript"); err == nil {
		argv = []string{p, "-e", fmt.Sprintf("display notification %s with title %s", appleString(n.Body()), appleString(n.Title()))}
	} else {
		return errors.New("neither notify-send nor osascript is installed")
	}
	if err := runBounded(shellRun{Argv: argv, Timeout: localTimeout}); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(argv[0]), err)
	}
	return nil
}

// runBounded runs a channel's program as the loop runs the user's steps (its own process
// group, ended at its time limit) and says how it went. A stop does not end it: the news of
// the stop is among what it may be telling.
func runBounded(r shellRun) error {
	res := runShell(context.Background(), r)
	switch {
	case res.Err != nil:
		return res.Err
	case res.TimedOut:
		return fmt.Errorf("timed out after %s, ended", r.Timeout)
	case res.Code != 0:
		return fmt.Errorf("exit %d: %s", res.Code, words.OneLine(res.Output))
	}
	return nil
}

// appleString quotes s for AppleScript.
func appleString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
