package serve

import (
	"strconv"
	"strings"
)

// maxParams bounds the parameters of one SGR sequence that are read.
const maxParams = 32

// applySGR is l after the SGR sequence with params ("1;31", "38;5;196", "").
func applySGR(l look, params string) look {
	var ps []int
	for i, p := range strings.Split(params, ";") {
		if i == maxParams {
			break
		}
		p, _, _ = strings.Cut(p, ":") // a sub-parameter (4:3, a curly underline) counts as its kind
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			n = 0
		}
		ps = append(ps, n)
	}
	for i := 0; i < len(ps); i++ {
		switch n := ps[i]; {
		case n == 38 || n == 48:
			colour, used := extendedColour(ps[i+1:])
			i += used
			if n == 38 {
				l.fg = colour
			} else {
				l.bg = colour
			}
		default:
			l = applyOne(l, n)
		}
	}
	return l
}

// applyOne applies one SGR parameter that stands alone.
func applyOne(l look, n int) look {
	switch {
	case n == 0:
		return plainLook
	case n == 1:
		l.bold = true
	case n == 2:
		l.dim = true
	case n == 3:
		l.italic = true
	case n == 4:
		l.underline = true
	case n == 7:
		l.inverse = true
	case n == 9:
		l.strike = true
	case n == 22:
		l.bold, l.dim = false, false
	case n == 23:
		l.italic = false
	case n == 24:
		l.underline = false
	case n == 27:
		l.inverse = false
	case n == 29:
		l.strike = false
	case n >= 30 && n <= 37:
		l.fg = n - 30
	case n == 39:
		l.fg = -1
	case n >= 40 && n <= 47:
		l.bg = n - 40
	case n == 49:
		l.bg = -1
	case n >= 90 && n <= 97:
		l.fg = n - 90 + 8
	case n >= 100 && n <= 107:
		l.bg = n - 100 + 8
	}
	return l
}

// extendedColour reads what follows a 38 or 48: 5;N (the palette) or 2;R;G;B (the nearest of
// the palette's colour cube); it returns the colour (-1: none) and how many parameters it took.
func extendedColour(ps []int) (int, int) {
	if len(ps) >= 2 && ps[0] == 5 {
		if ps[1] > 255 {
			return -1, 2
		}
		return ps[1], 2
	}
	if len(ps) >= 4 && ps[0] == 2 {
		cube := func(v int) int { return (min(v, 255)*5 + 127) / 255 }
		return 16 + 36*cube(ps[1]) + 6*cube(ps[2]) + cube(ps[3]), 4
	}
	return -1, len(ps)
}
