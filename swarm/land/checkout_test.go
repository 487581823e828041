package land

import (
	"slices"
	"strings"
	"testing"
)

func TestCheckoutBlock(t *testing.T) {
	cases := []struct {
		name                         string
		modified, untracked, changed []string
		want                         string
	}{
		{"clean", nil, nil, []string{"a.txt"}, ""},
		{"untracked beside the landing", nil, []string{"ralph/inbox.jsonl", "ralph/specs/x.md"}, []string{"a.txt", "ralph/README.md"}, ""},
		{"untracked where the landing writes", nil, []string{"notes.txt", "a.txt"}, []string{"a.txt"},
			"main is checked out in /r with untracked files the landing would overwrite (a.txt); move them away or commit them there, then run swarm land again"},
		{"tracked changes, whatever the landing writes", []string{"README.md"}, []string{"a.txt"}, nil,
			"main is checked out in /r with uncommitted changes to tracked files (README.md); commit or stash them there, then run swarm land again"},
	}
	for _, tc := range cases {
		if got := checkoutBlock("main", "/r", tc.modified, tc.untracked, tc.changed); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestOverwrittenCountsDirectoriesBothWays(t *testing.T) {
	untracked := []string{"docs", "build/out.txt", "keep/me.txt", "a.txt"}
	changed := []string{"docs/index.md", "build", "keep/other.txt", "a.txt"}
	if got, want := overwritten(untracked, changed), []string{"docs", "build/out.txt", "a.txt"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNamePathsIsBoundedAndEscaped(t *testing.T) {
	got := namePaths([]string{"a", "b", "c", "d", "e\x1b[2J", "f", "g"})
	if want := `a, b, c, d, "e\x1b[2J" and 2 more`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if strings.Contains(got, "\x1b") {
		t.Error("an escape reaches the terminal")
	}
}
