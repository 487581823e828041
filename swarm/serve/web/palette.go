package web

import (
	"fmt"
	"strings"
)

// The screen's colours: the server gives a screen's colours as classes fg-N and bg-N, N the
// 256-colour palette's index (a true colour comes as its nearest in the cube), and bold, dim, italic,
// underline, inverse and strike. The page's stylesheet for them is made here, once, from the
// palette's own rules (16 named colours, a 6x6x6 cube, 24 greys), not written out by hand:
// 512 rules that must agree with the server's numbers. Inline styles would be shorter, but
// the Content-Security-Policy refuses them.

// named are the 16 first colours, tuned to read on the page's dark screen.
var named = [16]string{
	"#6e7681", "#ff7b72", "#7ee787", "#e3b341", "#79c0ff", "#d2a8ff", "#76e3ea", "#c9d1d9",
	"#8b949e", "#ffa198", "#aff5b4", "#f8e3a1", "#a5d6ff", "#e2c5ff", "#b3f0ff", "#f0f6fc",
}

// paletteColour is colour n of the 256 as #rrggbb.
func paletteColour(n int) string {
	switch {
	case n < 16:
		return named[n]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	default:
		g := 8 + 10*(n-232)
		return fmt.Sprintf("#%02x%02x%02x", g, g, g)
	}
}

// paletteCSS is the stylesheet of a screen's classes.
func paletteCSS() []byte {
	var b strings.Builder
	b.WriteString("/* The screen's colours (made by swarm's web package). */\n")
	for n := range 256 {
		c := paletteColour(n)
		fmt.Fprintf(&b, ".screen .fg-%d{color:%s}.screen .bg-%d{background:%s}\n", n, c, n, c)
	}
	b.WriteString(".screen .bold{font-weight:700}.screen .dim{opacity:.65}.screen .italic{font-style:italic}\n")
	b.WriteString(".screen .underline{text-decoration:underline}.screen .strike{text-decoration:line-through}\n")
	b.WriteString(".screen .underline.strike{text-decoration:underline line-through}\n")
	b.WriteString(".screen .inverse{background:var(--screen-fg);color:var(--screen-bg)}\n")
	return []byte(b.String())
}
