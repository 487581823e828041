package webtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// names are where a Chromium is looked for, in order, after $SWARM_CHROMIUM.
var names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// Find is the Chromium to run: $SWARM_CHROMIUM, or the first of the usual names on PATH.
func Find() (string, error) {
	if p := os.Getenv("SWARM_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium found (apt-get install -y chromium, or set SWARM_CHROMIUM)")
}

// Browser is a headless Chromium with a profile of its own, removed when it is closed.
type Browser struct {
	ctx     context.Context
	cancel  func()
	profile string
}

// Start runs Chromium headless with a temporary profile. It runs without its sandbox only
// as root, where Chromium refuses to start with it.
func Start(path string) (*Browser, error) {
	profile, err := os.MkdirTemp("", "swarm-webtest-")
	if err != nil {
		return nil, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.Flag("headless", "new"),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		bcancel()
		acancel()
		_ = os.RemoveAll(profile)
		return nil, err
	}
	return &Browser{ctx: bctx, profile: profile, cancel: func() { bcancel(); acancel() }}, nil
}

// Close ends the browser and removes its profile.
func (b *Browser) Close() {
	b.cancel()
	_ = os.RemoveAll(b.profile)
}

var (
	shared     *Browser
	sharedErr  error
	sharedSkip string
	sharedOnce sync.Once
)

// Shared is the test binary's one browser, started on first use. Without a Chromium the
// test is skipped, or failed where CI=true. Call Main from TestMain to close it at the end.
func Shared(t testing.TB) *Browser {
	t.Helper()
	sharedOnce.Do(func() {
		path, err := Find()
		if err != nil {
			sharedSkip = "browser test skipped: " + err.Error()
			return
		}
		shared, sharedErr = Start(path)
	})
	if sharedSkip != "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(sharedSkip + "; CI must run the browser tests")
		}
		t.Skip(sharedSkip)
	}
	if sharedErr != nil {
		t.Fatalf("chromium does not start: %v", sharedErr)
	}
	return shared
}

// Main runs the tests and then closes the shared browser: TestMain's body.
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	return code
}
