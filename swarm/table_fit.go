package swarm

import (
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// A table of workers on a terminal fits its width: paths are said from ~, and when the table
// is still too wide the columns that matter least give way first (tableFit). Off a terminal
// the table is whole, as scripts and files have always had it. The NAME, HOST and STATUS
// columns are never cut: a worker's name is what every command takes, and its state is what
// ls is read for.

// columnGap is the room between two columns (tabwriter's padding).
const columnGap = 2

// minPathWidth is as far as a path is elided before its column gives way instead.
const minPathWidth = 20

// tableColumn is one column of a table: its title and its cells.
type tableColumn struct {
	title string
	cells []string
}

// width is how wide the column is drawn: its widest cell or title.
func (c tableColumn) width() int {
	w := utf8.RuneCountInString(c.title)
	for _, cell := range c.cells {
		w = max(w, utf8.RuneCountInString(cell))
	}
	return w
}

// tableWidth is how wide a table of these columns is drawn.
func tableWidth(cols []tableColumn) int {
	w := 0
	for i, c := range cols {
		if i > 0 {
			w += columnGap
		}
		w += c.width()
	}
	return w
}

// tableFit is how a table is made to fit a terminal: width 0 means it is not drawn on one.
type tableFit struct {
	width int
	home  string // the user's home directory, said as ~
}

// fitOn is how a table written to stdout (the command's) fits: the terminal's width, else
// $COLUMNS on a terminal that does not say, and no fitting off a terminal.
func fitOn(stdout io.Writer) tableFit {
	f, ok := stdout.(*os.File)
	if !ok || !isTerminal(f) {
		return tableFit{}
	}
	home, _ := os.UserHomeDir()
	fit := tableFit{home: home}
	if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
		fit.width = w
	} else if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		fit.width = n
	}
	return fit
}

// giveWay is the order in which columns give way on a narrow terminal, until the table fits:
// the tags and the uptime matter least; once they are gone, the worktrees' paths are elided
// in their middle (to minPathWidth at most) before any other column goes; WHERE mostly repeats
// the name (swarm:NAME); a worktree's path can be had from status; where the branch stands in
// the merge queue is the last to go.
var giveWay = []string{"TAGS", "UPTIME", "WHERE", "WORKTREE", "LAND"}

// elideAfter is how many columns give way before the paths are elided.
const elideAfter = 2

// fitted is the table's columns as they fit: paths from ~ (on a terminal), then, while the
// table is wider than the terminal, the columns of giveWay dropped one by one, the paths
// elided as far as they need to be at each step once elideAfter columns are gone.
func (f tableFit) fitted(cols []tableColumn) []tableColumn {
	if f.width <= 0 {
		return cols
	}
	var paths []string
	if i := columnIndex(cols, "WORKTREE"); i >= 0 {
		paths = mapCells(cols[i].cells, func(p string) string { return fromHome(p, f.home) })
		cols[i].cells = paths
	}
	for step := 0; ; step++ {
		if step >= elideAfter {
			cols = elidePaths(cols, paths, f.width)
		}
		if tableWidth(cols) <= f.width || step == len(giveWay) {
			return cols
		}
		if i := columnIndex(cols, giveWay[step]); i >= 0 {
			cols = append(cols[:i:i], cols[i+1:]...)
		}
	}
}

// elidePaths makes the worktree column (when there is one) as narrow as the table needs to fit
// width, down to minPathWidth, from its paths whole.
func elidePaths(cols []tableColumn, paths []string, width int) []tableColumn {
	i := columnIndex(cols, "WORKTREE")
	if i < 0 {
		return cols
	}
	cols[i].cells = paths
	if over := tableWidth(cols) - width; over > 0 {
		room := max(minPathWidth, cols[i].width()-over)
		cols[i].cells = mapCells(paths, func(p string) string { return elideMiddle(p, room) })
	}
	return cols
}

func columnIndex(cols []tableColumn, title string) int {
	for i, c := range cols {
		if c.title == title {
			return i
		}
	}
	return -1
}

func mapCells(cells []string, f func(string) string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = f(c)
	}
	return out
}

// fromHome says a path under home from ~: "~/src/app".
func fromHome(path, home string) string {
	switch {
	case home == "" || home == "/":
		return path
	case path == home:
		return "~"
	case strings.HasPrefix(path, home+"/"):
		return "~" + path[len(home):]
	}
	return path
}

// elideMiddle shortens s to n characters by taking out its middle: a path keeps where it
// starts and, more of it, where it ends (the worktree's own name).
func elideMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 3 {
		return s
	}
	head := (n - 1) / 3
	tail := n - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}
