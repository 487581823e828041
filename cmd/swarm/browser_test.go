package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/swarm-dev/swarm/swarm/serve/web/webtest"
)

// The browser command: a real headless Chromium on the page of a running swarm serve, one
// per script (started by `browser start`, closed and checked by `browser close`, closed
// without a check if the script ends first). What the page must never do fails the script at
// `browser close`: a console error, an uncaught exception, a JavaScript dialog (an alert an
// agent's screen slipped in), a Content-Security-Policy violation, a request off the origin.

// browserWait bounds a wait for the page: long beside a busy machine.
const browserWait = 20 * time.Second

// browserRun is one script's browser and tab.
type browserRun struct {
	browser *webtest.Browser
	page    *webtest.Page
	tb      *scriptTB
	base    string // the server's origin, from the login link
}

var browsers sync.Map // *testscript.TestScript -> *browserRun

// cmdBrowser: start | login SERVED | open [-refused] PATH [SERVED] (quoted when it holds a #: a script's comment
// starts at any #) | size W H | text [-within DUR] SELECTOR
// REGEXP | click SELECTOR | js EXPR | screenshot NAME | close. With !, text and js say the
// opposite holds now (no wait); the other verbs refuse !.
func cmdBrowser(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: browser start|login|open|size|text|click|js|screenshot|close ...")
	}
	verb, args := args[0], args[1:]
	if neg && verb != "text" && verb != "js" {
		ts.Fatalf("browser %s: ! is not supported", verb)
	}
	if verb == "start" {
		browserStart(ts)
		return
	}
	v, ok := browsers.Load(ts)
	if !ok {
		ts.Fatalf("browser %s: no browser (browser start first)", verb)
	}
	b := v.(*browserRun)
	switch verb {
	case "login":
		b.login(ts, args)
	case "open":
		b.open(ts, args)
	case "size":
		b.size(ts, args)
	case "text":
		b.text(ts, neg, args)
	case "click":
		b.click(ts, args)
	case "js":
		b.js(ts, neg, args)
	case "screenshot":
		b.screenshot(ts, args)
	case "close":
		b.close(ts)
	default:
		ts.Fatalf("browser: unknown verb %s", verb)
	}
}

func browserStart(ts *testscript.TestScript) {
	tb := &scriptTB{ts: ts}
	// A script without a browser is skipped by its [browser] condition, except under CI.
	path, err := webtest.Find()
	if err != nil {
		ts.Fatalf("browser: %v", err)
	}
	br, err := webtest.Start(path)
	if err != nil {
		ts.Fatalf("browser: chromium does not start: %v", err)
	}
	b := &browserRun{browser: br, tb: tb}
	b.page = br.NewPage(tb, 1280, 800)
	browsers.Store(ts, b)
	ts.Defer(func() {
		if _, still := browsers.LoadAndDelete(ts); still {
			tb.runCleanups()
			br.Close()
		}
	})
}

// login opens the login link swarm serve printed in the file SERVED.
func (b *browserRun) login(ts *testscript.TestScript, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: browser login SERVED")
	}
	link := regexp.MustCompile(`https?://\S+/login\?token=[0-9a-f]+`).FindString(readFile(ts, args[0]))
	if link == "" {
		ts.Fatalf("browser login: no login link in %s", args[0])
	}
	b.base = servedAt.FindString(link)
	b.page.Do(chromedp.Navigate(link))
}

// open goes to PATH on the server (the origin of the link in SERVED when not logged in);
// -refused: the page is to be refused, so its failure to load (and the icon's) is no fault.
func (b *browserRun) open(ts *testscript.TestScript, args []string) {
	refused := len(args) > 0 && args[0] == "-refused"
	if refused {
		args = args[1:]
	}
	if len(args) == 2 {
		b.base = servedAt.FindString(readFile(ts, args[1]))
	}
	if len(args) < 1 || len(args) > 2 || b.base == "" {
		ts.Fatalf("usage: browser open PATH [SERVED] (SERVED, or a login first, names the server)")
	}
	// A route of the page already open is a change of its hash, which a navigation to the
	// same document with another fragment does not always tell the page of.
	if hash, ok := strings.CutPrefix(args[0], "/#"); ok && webtest.Eval[string](b.page, "location.origin") == b.base {
		webtest.Eval[string](b.page, fmt.Sprintf("location.hash = %s", strconv.Quote(hash)))
		return
	}
	if refused {
		b.page.Allow(b.base+args[0], b.base+"/favicon.ico")
	}
	b.page.Do(chromedp.Navigate(b.base + args[0]))
}

func (b *browserRun) size(ts *testscript.TestScript, args []string) {
	w, err1 := strconv.ParseInt(argAt(args, 0), 10, 64)
	h, err2 := strconv.ParseInt(argAt(args, 1), 10, 64)
	if err1 != nil || err2 != nil || len(args) != 2 {
		ts.Fatalf("usage: browser size WIDTH HEIGHT")
	}
	b.page.Do(chromedp.EmulateViewport(w, h))
}

// text waits until the innerText of the first element SELECTOR matches REGEXP; -within
// bounds the wait (from the command's start). With !, it must not match now.
func (b *browserRun) text(ts *testscript.TestScript, neg bool, args []string) {
	within := browserWait
	if len(args) > 1 && args[0] == "-within" {
		d, err := time.ParseDuration(args[1])
		if err != nil {
			ts.Fatalf("browser text: -within %s: %v", args[1], err)
		}
		within, args = d, args[2:]
	}
	if len(args) != 2 {
		ts.Fatalf("usage: browser text [-within DURATION] SELECTOR REGEXP")
	}
	re, err := regexp.Compile(args[1])
	if err != nil {
		ts.Fatalf("browser text: %v", err)
	}
	read := fmt.Sprintf(`(document.querySelector(%s) || {innerText: ""}).innerText`, strconv.Quote(args[0]))
	if neg {
		if got := webtest.Eval[string](b.page, read); re.MatchString(got) {
			ts.Fatalf("browser text: %s matches %q: %q", args[0], args[1], got)
		}
		return
	}
	start := time.Now()
	match := fmt.Sprintf(`new RegExp(%s, "m").test(%s)`, strconv.Quote(args[1]), read)
	if err := b.page.WaitTrue(match, within); err != nil {
		ts.Fatalf("browser text: %s did not match %q within %s: %q", args[0], args[1], within,
			webtest.Eval[string](b.page, read))
	}
	ts.Logf("browser text: %s matched %q after %s", args[0], args[1], time.Since(start).Round(time.Millisecond))
}

// click waits for the element to be visible and clicks it.
func (b *browserRun) click(ts *testscript.TestScript, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: browser click SELECTOR")
	}
	there := fmt.Sprintf(`!!document.querySelector(%s)`, strconv.Quote(args[0]))
	if err := b.page.WaitTrue(there, browserWait); err != nil {
		ts.Fatalf("browser click: no %s within %s; the page says: %q", args[0], browserWait,
			webtest.Eval[string](b.page, `document.body.innerText`))
	}
	b.page.Do(chromedp.Click(chromedp.CSS(args[0])))
}

// js requires a JavaScript expression to be truthy (with !, falsy) now.
func (b *browserRun) js(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: browser js EXPR")
	}
	if got := webtest.Eval[bool](b.page, "!!("+args[0]+")"); got == neg {
		ts.Fatalf("browser js: %s is %v", args[0], got)
	}
}

func (b *browserRun) screenshot(ts *testscript.TestScript, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: browser screenshot NAME")
	}
	b.page.Screenshot(args[0])
}

// close checks what the page did, then ends the browser: every request stayed on the
// server's origin, and nothing the tab met (console errors, CSP violations, dialogs) failed.
func (b *browserRun) close(ts *testscript.TestScript) {
	browsers.Delete(ts)
	var off []string
	for _, u := range b.page.Requests() {
		if b.base != "" && !strings.HasPrefix(u, b.base+"/") && u != b.base && !strings.HasPrefix(u, "data:") {
			off = append(off, u)
		}
	}
	b.tb.runCleanups()
	b.browser.Close()
	if len(off) > 0 {
		b.tb.Errorf("requests off the origin: %s", strings.Join(off, " "))
	}
	if len(b.tb.errs) > 0 {
		ts.Fatalf("browser: %s", strings.Join(b.tb.errs, "; "))
	}
}

func argAt(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

// scriptTB is the testing.TB the browser harness is given inside a script: failures go to
// the script, errors are kept for `browser close`, cleanups run there. Only the methods the
// harness calls are answered; the embedded nil TB stands for the rest.
type scriptTB struct {
	testing.TB
	ts       *testscript.TestScript
	errs     []string
	cleanups []func()
}

func (s *scriptTB) Helper()                           {}
func (s *scriptTB) Fatalf(format string, args ...any) { s.ts.Fatalf(format, args...) }
func (s *scriptTB) Fatal(args ...any)                 { s.ts.Fatalf("%s", fmt.Sprint(args...)) }
func (s *scriptTB) Logf(format string, args ...any)   { s.ts.Logf(format, args...) }
func (s *scriptTB) Cleanup(f func())                  { s.cleanups = append(s.cleanups, f) }
func (s *scriptTB) TempDir() string                   { return s.ts.MkAbs("browser-tmp") }

func (s *scriptTB) Errorf(format string, args ...any) {
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

// runCleanups runs the cleanups, the last registered first, once.
func (s *scriptTB) runCleanups() {
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		s.cleanups[i]()
	}
	s.cleanups = nil
}
