package web

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/swarm-dev/swarm/swarm/serve/web/webtest"
)

func TestMain(m *testing.M) { os.Exit(webtest.Main(m)) }

// open serves the page beside a fake API and opens it at a size, the hash given; at the
// end, every request must have stayed on the server's origin.
func open(t *testing.T, width, height int64, hash string) (*webtest.Page, *fakeAPI, string) {
	b := webtest.Shared(t)
	f, srv := newFakeAPI(t)
	p := b.NewPage(t, width, height)
	t.Cleanup(func() {
		for _, u := range p.Requests() {
			if !strings.HasPrefix(u, srv.URL+"/") && !strings.HasPrefix(u, "data:") {
				t.Errorf("a request left the origin: %s", u)
			}
		}
	})
	p.Do(chromedp.Navigate(srv.URL + "/" + hash))
	return p, f, srv.URL
}

func wait(t *testing.T, p *webtest.Page, expr string) {
	t.Helper()
	if err := p.WaitTrue(`(() => { try { return !!(`+expr+`) } catch { return false } })()`, webtest.Timeout); err != nil {
		t.Fatalf("waiting for %s: %v", expr, err)
	}
}

func TestFleetShowsNeedsPersonFirst(t *testing.T) {
	p, _, _ := open(t, 1280, 800, "#/")
	wait(t, p, `document.querySelectorAll('.row').length === 3`)
	names := webtest.Eval[[]string](p, `[...document.querySelectorAll('.row')].map(r => r.dataset.worker)`)
	if strings.Join(names, " ") != "beta alpha gamma@buildbox" {
		t.Fatalf("fleet order: %v, want beta (needs a person), alpha (running), gamma@buildbox", names)
	}
	text := webtest.Eval[string](p, `document.querySelector('.fleet').innerText`)
	for _, want := range []string{"blocked (permission: Bash(rm -rf build))", "buildbox", "unreachable, seen 25m ago", "$1.25", "iter 7"} {
		if !strings.Contains(text, want) {
			t.Errorf("fleet lacks %q:\n%s", want, text)
		}
	}
}

func TestEventArrivesWithinASecond(t *testing.T) {
	p, f, _ := open(t, 1280, 800, "#/")
	wait(t, p, `document.querySelectorAll('.row').length === 3`)
	select {
	case <-f.streams:
	case <-time.After(webtest.Timeout):
		t.Fatal("the page never opened the event stream")
	}
	sent := f.push(42, `{"id":42,"time":"`+time.Now().UTC().Format(time.RFC3339Nano)+`","kind":"iteration.ended","host":"local","worker":"alpha","iteration":7,"how":"done","reason":"marker-xyz"}`)
	if err := p.WaitTrue(`(document.querySelector('[data-worker="alpha"] .last')||{}).textContent?.includes('marker-xyz')`, time.Second); err != nil {
		t.Fatalf("the event did not reach the page within 1 s: %v", err)
	}
	t.Logf("event on the page %v after it was sent", time.Since(sent).Round(time.Millisecond))
}

func TestPausePostsSameOrigin(t *testing.T) {
	p, f, url := open(t, 1280, 800, "")
	p.Do(chromedp.Evaluate[chromedp.Void](`document.cookie = "swarm_token=t0k; path=/"`), chromedp.Navigate(url+"/#/w/alpha"))
	wait(t, p, `!!document.querySelector('button[aria-label="Pause alpha"]')`)
	p.Do(chromedp.Click(chromedp.CSS(`button[aria-label="Pause alpha"]`)))
	wait(t, p, `document.querySelector('.output').textContent.includes('pause alpha: ok')`)
	posts := f.posted()
	if len(posts) != 1 {
		t.Fatalf("posts: %+v, want one", posts)
	}
	got := posts[0]
	if got.Path != "/api/v1/workers/alpha/pause" || got.ContentType != "application/json" ||
		!strings.Contains(got.Cookie, "swarm_token=t0k") || got.FetchSite != "same-origin" || got.Origin != url {
		t.Errorf("pause posted %+v", got)
	}
}

func TestKillAsksFirst(t *testing.T) {
	p, f, _ := open(t, 1280, 800, "#/w/gamma%40buildbox")
	wait(t, p, `!!document.querySelector('button[aria-label="Kill gamma@buildbox"]')`)
	p.Do(chromedp.Click(chromedp.CSS(`button[aria-label="Kill gamma@buildbox"]`)))
	wait(t, p, `document.getElementById('confirm').open`)
	if n := len(f.posted()); n != 0 {
		t.Fatalf("kill posted before it was confirmed: %d", n)
	}
	p.Do(chromedp.Click(chromedp.ID("confirm-cancel")))
	wait(t, p, `!document.getElementById('confirm').open`)
	p.Do(chromedp.Click(chromedp.CSS(`button[aria-label="Kill gamma@buildbox"]`)))
	wait(t, p, `document.getElementById('confirm').open`)
	p.Do(chromedp.Click(chromedp.ID("confirm-ok")))
	// Confirmed, it posts: the fake API hears it (what the page shows of the answer is the
	// action tests' matter, and a refresh may draw it again meanwhile).
	deadline := time.Now().Add(webtest.Timeout)
	for len(f.posted()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	posts := f.posted()
	if len(posts) != 1 || posts[0].Path != "/api/v1/workers/gamma@buildbox/kill" {
		t.Fatalf("kill posted %+v, want one POST to /api/v1/workers/gamma@buildbox/kill", posts)
	}
}

func TestScreenIsInert(t *testing.T) {
	for _, colour := range []bool{true, false} {
		t.Run(map[bool]string{true: "html", false: "text"}[colour], func(t *testing.T) {
			p, f, url := open(t, 1280, 800, "")
			f.setScreen([]string{"<script>alert(1)</script>", "\x1b[31mred\x1b[0m <img src=x onerror=window.pwned=1>"}, colour)
			p.Do(chromedp.Navigate(url + "/#/w/alpha"))
			wait(t, p, `document.querySelector('.screen').textContent.includes('<script>alert(1)</script>')`)
			if n := webtest.Eval[int](p, `document.querySelectorAll('.screen script, .screen img').length`); n != 0 {
				t.Errorf("the screen made %d elements of its text", n)
			}
			if webtest.Eval[bool](p, `!!window.pwned`) {
				t.Error("the screen's text ran a script")
			}
		})
	}
}

func TestReadOnlyHidesActions(t *testing.T) {
	p, f, url := open(t, 1280, 800, "")
	f.readOnly = true
	p.Do(chromedp.Navigate(url + "/#/w/beta"))
	wait(t, p, `document.querySelectorAll('.iterations, table tbody tr').length > 0`)
	if n := webtest.Eval[int](p, `document.querySelectorAll('.actions button, form.send').length`); n != 0 {
		t.Errorf("a read-only server's page shows %d actions", n)
	}
}

func TestNightDrawsTimelines(t *testing.T) {
	p, _, _ := open(t, 1280, 800, "#/night")
	wait(t, p, `document.querySelectorAll('svg.lane').length === 3`)
	n := webtest.Eval[int](p, `document.querySelectorAll('svg.lane rect.bar').length`)
	if n < 18 {
		t.Errorf("%d marks of iterations, want 18 and more", n)
	}
	for _, sel := range []string{`rect.o-api`, `rect.wait`, `.mark.landed`, `.mark.sentback`, `svg.costline polyline`, `.legend li`} {
		if webtest.Eval[int](p, `document.querySelectorAll('`+sel+`').length`) == 0 {
			t.Errorf("the night has no %s", sel)
		}
	}
	if bad := webtest.Eval[int](p, `[...document.querySelectorAll('svg.lane rect.bar')].filter(r => !r.querySelector('title')).length`); bad != 0 {
		t.Errorf("%d marks say nothing in words", bad)
	}
}

// Eval is a number the page works out.
func Eval(p *webtest.Page, expr string) int { return webtest.Eval[int](p, expr) }

// EvalStrings is a list of strings the page works out.
func EvalStrings(p *webtest.Page, expr string) []string { return webtest.Eval[[]string](p, expr) }
