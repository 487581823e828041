package sandbox

import "testing"

func TestVersionOf(t *testing.T) {
	for said, want := range map[string]string{
		"bubblewrap 0.8.0\n":          "0.8.0",
		"bubblewrap 0.11.0-rc1":       "0.11.0-rc1",
		"0.4.1":                       "0.4.1",
		"":                            "",
		"bubblewrap":                  "",
		"bubblewrap \x1b[31m1.0":      "",
		"bubblewrap 1.0;rm -rf /":     "",
		"bubblewrap 1.0\nsecond line": "1.0",
	} {
		if got := versionOf(said); got != want {
			t.Errorf("versionOf(%q) = %q, want %q", said, got, want)
		}
	}
}

func TestProblemSaysWhyFixAndBubblewrapsWords(t *testing.T) {
	for _, c := range []struct {
		s    Support
		want string
	}{
		{Support{}, ""},
		{Support{Why: "bubblewrap is not installed", Fix: "apt-get install bubblewrap"}, "bubblewrap is not installed (apt-get install bubblewrap)"},
		{Support{Why: "bubblewrap fails here", Said: "bwrap: oops"}, "bubblewrap fails here: bwrap: oops"},
		{Support{Why: "w", Fix: "f", Said: "s"}, "w (f): s"},
	} {
		if got := c.s.Problem(); got != c.want {
			t.Errorf("%+v.Problem() = %q, want %q", c.s, got, c.want)
		}
		if c.s.OK() != (c.want == "") {
			t.Errorf("%+v.OK() = %v", c.s, c.s.OK())
		}
	}
}
