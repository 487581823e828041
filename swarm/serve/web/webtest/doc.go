// Package webtest runs a real headless Chromium for tests of swarm's web page, through the
// Chrome DevTools Protocol (chromedp): one browser per test binary, a fresh tab per test at a
// given size, and what a test must never let pass collected as it happens: console errors,
// uncaught exceptions, Content-Security-Policy violations and JavaScript dialogs (alert)
// fail the test; every request the page makes is kept, so a test can say none left the
// origin; screenshots go to the artifact directory.
//
// Without Chromium the tests skip with one line, except where CI=true, where they fail:
// CI installs Debian's chromium, so a browser test never passes there without a browser.
package webtest
