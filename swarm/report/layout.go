package report

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Tables that fit a terminal: columns two spaces apart, each as wide as its widest cell. A
// column that says nothing ("-" in every row) is left out; when the rest is wider than the
// terminal, columns give way in the order given, each down to a width, their cells cut with "…".

// giveWay is a step in fitting a table: the column headed col narrows to min columns at most.
type giveWay struct {
	col string
	min int
}

// gap is the space between two columns.
const gap = 2

// layout lays rows out as lines no wider than width (0: any width); rows[0] is the header,
// and the columns headed by a name in keep are kept even when they say nothing.
func layout(rows [][]string, width int, keep []string, steps []giveWay) []string {
	rows = withoutEmptyColumns(rows, keep)
	widths := columnWidths(rows)
	over := sum(widths) + gap*(len(widths)-1) - width
	for _, s := range steps {
		c := slices.Index(rows[0], s.col)
		if width <= 0 || over <= 0 {
			break
		}
		if c < 0 {
			continue
		}
		// A header is never cut: it says what the cut cells were.
		cut := min(over, max(widths[c]-max(s.min, ansi.StringWidth(s.col)), 0))
		widths[c] -= cut
		over -= cut
	}
	out := make([]string, len(rows))
	for i, row := range rows {
		var b strings.Builder
		for c, cell := range row {
			if ansi.StringWidth(cell) > widths[c] {
				cell = ansi.Truncate(cell, widths[c], "…")
			}
			b.WriteString(cell)
			if c < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[c]-ansi.StringWidth(cell)+gap))
			}
		}
		out[i] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// withoutEmptyColumns leaves out the columns that are "-" in every row but the header's, but
// those named in keep.
func withoutEmptyColumns(rows [][]string, keep []string) [][]string {
	var drop []int
	for c, head := range rows[0] {
		empty := !slices.Contains(keep, head)
		for _, row := range rows[1:] {
			if row[c] != "-" {
				empty = false
				break
			}
		}
		if empty {
			drop = append(drop, c)
		}
	}
	if len(drop) == 0 {
		return rows
	}
	out := make([][]string, len(rows))
	for i, row := range rows {
		for c, cell := range row {
			if !slices.Contains(drop, c) {
				out[i] = append(out[i], cell)
			}
		}
	}
	return out
}

func columnWidths(rows [][]string) []int {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for c, cell := range row {
			widths[c] = max(widths[c], ansi.StringWidth(cell))
		}
	}
	return widths
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
