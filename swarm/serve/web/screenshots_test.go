package web

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestScreenshots keeps every page at a phone's size and a desktop's as artifacts, and on
// the phone checks one column: nothing wider than the screen, every control a finger's size.
func TestScreenshots(t *testing.T) {
	sizes := []struct {
		name          string
		width, height int64
	}{{"phone", 390, 844}, {"desktop", 1280, 800}}
	pages := []struct{ name, hash, ready string }{
		{"fleet", "#/", `document.querySelectorAll('.row').length === 3`},
		{"worker", "#/w/beta", `document.querySelectorAll('table tbody tr').length > 0 && document.querySelector('.screen').textContent.includes('make test')`},
		{"night", "#/night", `document.querySelectorAll('svg.lane').length === 3`},
	}
	for _, s := range sizes {
		p, _, url := open(t, s.width, s.height, "")
		for _, pg := range pages {
			p.Do(chromedp.Navigate(url + "/" + pg.hash))
			wait(t, p, pg.ready)
			p.Screenshot(pg.name + "-" + s.name)
			if s.name != "phone" {
				continue
			}
			if wide := Eval(p, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); wide > 0 {
				t.Errorf("%s on a phone scrolls sideways by %d px", pg.name, wide)
			}
			small := EvalStrings(p, `[...document.querySelectorAll('button, select, input, a')]
				.filter(e => e.offsetParent !== null && e.getBoundingClientRect().height < 44)
				.map(e => e.outerHTML.slice(0, 80))`)
			for _, e := range small {
				t.Errorf("%s on a phone: a control under 44 px high: %s", pg.name, e)
			}
		}
	}
}
