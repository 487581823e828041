package swarm

import (
	"fmt"
	"reflect"
	"testing"
)

// One look at a followed pane at a time: what is printed, and how much of it counts as printed.
func TestFollowStep(t *testing.T) {
	full := func(from, n int, last string) []string {
		var out []string
		for i := from; i < from+n; i++ {
			out = append(out, fmt.Sprintf("line %d", i))
		}
		return append(out, last)
	}
	for _, tc := range []struct {
		name      string
		prev, cur []string
		printed   int
		dead      bool
		want      []string
		printedTo int
	}{
		{name: "nothing new", prev: []string{"a", "❯"}, cur: []string{"a", "❯"}, printed: 2, printedTo: 2},
		{name: "a line is added", prev: []string{"a"}, cur: []string{"a", "b", "c"}, printed: 1,
			want: []string{"b"}, printedTo: 2},
		{name: "the last line waits until it is complete", prev: []string{"a", "b"}, cur: []string{"a", "b", "c"}, printed: 2,
			printedTo: 2},
		{name: "a printed prompt the text arrived after waits for a later line", prev: []string{"a", "❯"},
			cur: []string{"a", "❯ hello"}, printed: 2, printedTo: 1},
		{name: "then it is printed again, grown", prev: []string{"a", "❯ hello"}, cur: []string{"a", "❯ hello", "world"},
			printed: 1, want: []string{"❯ hello"}, printedTo: 2},
		{name: "a grown line with a line after it at once", prev: []string{"a", "❯"}, cur: []string{"a", "❯ hello", "world", "❯"},
			printed: 2, want: []string{"❯ hello", "world"}, printedTo: 3},
		{name: "a changed line is printed again with all below it", prev: []string{"a", "50%", "b", "c"},
			cur: []string{"a", "100%", "b", "c", "d"}, printed: 3, want: []string{"100%", "b", "c"}, printedTo: 4},
		{name: "a dead pane's last line is printed", prev: []string{"a", "❯"}, cur: []string{"a", "❯ bye"}, printed: 2, dead: true,
			want: []string{"❯ bye"}, printedTo: 2},
		{name: "a full scrollback drops its oldest lines", prev: full(0, 400, "❯"), cur: full(3, 400, "❯"), printed: 400,
			want: []string{"line 400", "line 401", "line 402"}, printedTo: 400},
		{name: "a full scrollback drops lines while the last printed one grew", prev: full(0, 400, "❯"),
			cur: append(full(2, 398, "❯ hi"), "next"), printed: 401, want: []string{"❯ hi"}, printedTo: 399},
		{name: "a cleared screen is printed from its top", prev: []string{"a", "b", "c", "d"}, cur: []string{"x", "y"},
			printed: 4, want: []string{"x"}, printedTo: 1},
		{name: "repeated output is no scroll", prev: []string{"ok", "ok", "ok", "ok"}, cur: []string{"ok", "ok", "ok", "ok", "ok"},
			printed: 4, printedTo: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, to := followStep(tc.prev, tc.cur, tc.printed, tc.dead)
			if !reflect.DeepEqual(got, tc.want) || to != tc.printedTo {
				t.Errorf("followStep = %q, %d; want %q, %d", got, to, tc.want, tc.printedTo)
			}
		})
	}
}
