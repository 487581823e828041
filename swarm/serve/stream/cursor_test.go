package stream

import (
	"strings"
	"testing"
)

func TestParseCursor(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{in: "41", want: "41"},
		{in: "0", want: "0"},
		{in: "41,box:17", want: "41,box:17"},
		{in: "cloud:3,41,box:17", want: "41,box:17,cloud:3"},
		{in: "local:41,box:17", want: "41,box:17"},
		{in: "box:17", want: "0,box:17"},
		{in: " 41 , box:17 ", want: "41,box:17"},
		{in: "", err: "empty"},
		{in: "-1", err: "not negative"},
		{in: "x", err: "not ID or HOST:ID"},
		{in: "41,41", err: "twice"},
		{in: "41,local:3", err: "twice"},
		{in: "box:1,box:2", err: "twice"},
		{in: "box:", err: "not ID or HOST:ID"},
		{in: "b\x1bx:1", err: "invalid host name"},
		{in: "41,box:9223372036854775808", err: "not ID or HOST:ID"},
		{in: strings.Repeat("1,", 3000), err: "longer than"},
		{in: strings.TrimSuffix(strings.Repeat("h:1,", 200), ","), err: "more than"},
	} {
		cur, err := ParseCursor(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseCursor(%q) = %v, %v; want an error saying %q", c.in, cur, err, c.err)
			}
			continue
		}
		if err != nil || cur.String() != c.want {
			t.Errorf("ParseCursor(%q) = %v, %v; want %s", c.in, cur, err, c.want)
		}
	}
}
