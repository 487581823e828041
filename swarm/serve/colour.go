package serve

import (
	"html"
	"strconv"
	"strings"
)

// ScreenHTML is a screen's text captured with its escape sequences (tmux capture-pane -e) as
// HTML: the colours and looks of SGR sequences as <span class="..."> and everything else
// escaped; every other escape sequence and control character is dropped. Lines stay lines
// ("\n"), and no span crosses one. The classes are fg-N and bg-N (N the 256-colour palette's
// index: 0-7 the colours, 8-15 their bright forms; 24-bit colours are taken to the nearest),
// bold, dim, italic, underline, inverse and strike.
func ScreenHTML(text string) string {
	var c converter
	for i := 0; i < len(text); {
		i = c.step(text, i)
	}
	c.closeSpan()
	return c.out.String()
}

// look is the SGR state: colours (-1: the default) and attributes.
type look struct {
	fg, bg                                        int
	bold, dim, italic, underline, inverse, strike bool
}

var plainLook = look{fg: -1, bg: -1}

func (l look) classes() string {
	var c []string
	if l.fg >= 0 {
		c = append(c, "fg-"+strconv.Itoa(l.fg))
	}
	if l.bg >= 0 {
		c = append(c, "bg-"+strconv.Itoa(l.bg))
	}
	for _, a := range []struct {
		on   bool
		name string
	}{{l.bold, "bold"}, {l.dim, "dim"}, {l.italic, "italic"}, {l.underline, "underline"}, {l.inverse, "inverse"}, {l.strike, "strike"}} {
		if a.on {
			c = append(c, a.name)
		}
	}
	return strings.Join(c, " ")
}

type converter struct {
	out  strings.Builder
	now  look
	init bool   // now was set (the zero look is not the plain one)
	open string // the classes of the span open, "" when none
}

// step takes what starts at text[i] and returns where the next thing starts.
func (c *converter) step(text string, i int) int {
	if !c.init {
		c.now, c.init = plainLook, true
	}
	b := text[i]
	switch {
	case b == 0x1b:
		return c.escape(text, i)
	case b == '\n':
		c.closeSpan()
		c.out.WriteByte('\n')
		return i + 1
	case b < ' ' && b != '\t', b == 0x7f:
		return i + 1
	}
	j := i + 1
	for j < len(text) && text[j] >= ' ' && text[j] != 0x7f && text[j] != 0x1b {
		j++
	}
	c.write(dropC1(text[i:j]))
	return j
}

// dropC1 drops the C1 control characters (U+0080 to U+009F), which some terminals obey.
func dropC1(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0x80 && r <= 0x9f {
			return -1
		}
		return r
	}, s)
}

func (c *converter) write(s string) {
	if s == "" {
		return
	}
	if cl := c.now.classes(); cl != c.open {
		c.closeSpan()
		if cl != "" {
			c.out.WriteString(`<span class="` + cl + `">`)
			c.open = cl
		}
	}
	c.out.WriteString(html.EscapeString(s))
}

func (c *converter) closeSpan() {
	if c.open != "" {
		c.out.WriteString("</span>")
		c.open = ""
	}
}

// escape takes the escape sequence at text[i]: a CSI (SGR applied, others dropped), an OSC or
// string sequence (dropped to its end), or ESC and one character.
func (c *converter) escape(text string, i int) int {
	if i+1 >= len(text) {
		return i + 1
	}
	switch text[i+1] {
	case '[':
		j := i + 2
		for j < len(text) && (text[j] < 0x40 || text[j] > 0x7e) {
			if text[j] < 0x20 {
				return j // broken off: what follows is text again
			}
			j++
		}
		if j < len(text) && text[j] == 'm' {
			c.now = applySGR(c.now, text[i+2:j])
		}
		return min(j+1, len(text))
	case ']', 'P', '_', '^', 'X':
		return endOfString(text, i+2)
	}
	return i + 2
}

// endOfString is where a string sequence starting at i ends: after BEL or ESC \.
func endOfString(text string, i int) int {
	for ; i < len(text); i++ {
		if text[i] == 0x07 {
			return i + 1
		}
		if text[i] == 0x1b && i+1 < len(text) && text[i+1] == '\\' {
			return i + 2
		}
	}
	return i
}
