package webtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Timeout bounds each Do: long for a busy machine, short beside a hung test.
var Timeout = 30 * time.Second

// watchCSP is run in every document before its own scripts: it keeps the CSP violations the
// page meets, which the test reads at its end.
const watchCSP = `window.__csp = [];
document.addEventListener('securitypolicyviolation', (e) =>
  window.__csp.push(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber));`

// Page is one browser tab of a test, at one size.
type Page struct {
	Ctx context.Context
	t   testing.TB

	mu       sync.Mutex
	problems []string        // console errors, exceptions, dialogs
	requests []string        // every URL the page asked for
	allowed  map[string]bool // URLs whose failure to load is what the test wants
}

// Allow lets the page fail to load these URLs without failing the test: a test that opens
// a page it must be refused (401) wants the error the browser logs for it.
func (p *Page) Allow(urls ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.allowed == nil {
		p.allowed = map[string]bool{}
	}
	for _, u := range urls {
		p.allowed[u] = true
	}
}

// NewPage opens a tab of width x height CSS pixels. At the test's end the tab is closed and
// the test fails for any console error, uncaught exception, JavaScript dialog or CSP
// violation the page had.
func (b *Browser) NewPage(t testing.TB, width, height int64) *Page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	p := &Page{Ctx: ctx, t: t}
	if err := chromedp.Listen(ctx, p.listen); err != nil {
		cancel()
		t.Fatalf("browser tab: %v", err)
	}
	p.Do(chromedp.EmulateViewport(width, height), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watchCSP})
		return err
	}))
	t.Cleanup(func() {
		p.checkCSP()
		cancel()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, s := range p.problems {
			t.Errorf("browser: %s", s)
		}
	})
	return p
}

func (p *Page) listen(ev any) {
	var problem string
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			problem = "console." + string(e.Type) + ": " + args(e.Args)
		}
	case *runtime.EventExceptionThrown:
		problem = "uncaught: " + e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			problem += " " + e.ExceptionDetails.Exception.Description
		}
	case *log.EventEntryAdded:
		p.mu.Lock()
		allowed := p.allowed[e.Entry.URL]
		p.mu.Unlock()
		if e.Entry.Level == log.EntryLevelError && !allowed {
			problem = "log (" + string(e.Entry.Source) + "): " + e.Entry.Text + " " + e.Entry.URL
		}
	case *page.EventJavascriptDialogOpening:
		problem = "a JavaScript dialog opened: " + string(e.Type) + " " + e.Message
		// Dismissed, or the page hangs on it.
		go func() { _, _ = chromedp.Call(p.Ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{}) }()
	case *network.EventRequestWillBeSent:
		p.mu.Lock()
		p.requests = append(p.requests, e.Request.URL)
		p.mu.Unlock()
	}
	if problem != "" {
		p.mu.Lock()
		p.problems = append(p.problems, problem)
		p.mu.Unlock()
	}
}

func args(as []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range as {
		if len(a.Value) > 0 {
			parts = append(parts, string(a.Value))
		} else {
			parts = append(parts, a.Description)
		}
	}
	return strings.Join(parts, " ")
}

// checkCSP fails the test for each violation the page's documents recorded.
func (p *Page) checkCSP() {
	ctx, cancel := context.WithTimeout(p.Ctx, 5*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__csp || []`))
	if err != nil {
		return // the tab is gone or never loaded: nothing to read
	}
	for _, s := range v {
		p.t.Errorf("browser: Content-Security-Policy violation: %s", s)
	}
}

// Do runs actions with Timeout, failing the test on an error.
func (p *Page) Do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.Ctx, Timeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("browser: %v", err)
	}
}

// Eval is a JavaScript expression's value.
func Eval[T any](p *Page, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.Ctx, Timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("browser: %s: %v", expr, err)
	}
	return v
}

// WaitTrue waits until a JavaScript expression is true, looking every 10 ms, for at most d.
func (p *Page) WaitTrue(expr string, d time.Duration) error {
	ctx, cancel := context.WithTimeout(p.Ctx, d)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(10*time.Millisecond)))
	return err
}

// Requests are the URLs the page asked for so far.
func (p *Page) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.requests...)
}

// Screenshot saves what the tab shows as NAME.png in the artifact directory.
func (p *Page) Screenshot(name string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.Ctx, Timeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(ArtifactDir(p.t), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("screenshot: %s", path)
	return path
}

// ArtifactDir is where a test's screenshots go: $SWARM_TEST_ARTIFACTS (kept), or else a
// directory under the test's temp dir (removed with it). The test logs which.
func ArtifactDir(t testing.TB) string {
	dir := os.Getenv("SWARM_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(t.TempDir(), "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
