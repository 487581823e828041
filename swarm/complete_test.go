package swarm

import (
	"io"
	"reflect"
	"testing"
)

func TestCompletions(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	var dirAsked string
	names := func(dir string) []string {
		dirAsked = dir
		return []string{"alpha", "beta", "alpine"}
	}
	for _, tc := range []struct {
		words []string
		want  []string
		dir   string
	}{
		{words: []string{"ki"}, want: []string{"kill"}},
		{words: []string{"ralph", "s"}, want: []string{"spawn", "status", "stop", "summary"}},
		{words: []string{"kill", "al"}, want: []string{"alpha", "alpine"}},
		{words: []string{"kill", "alpha", "al"}, want: []string{"alpha", "alpine"}},
		{words: []string{"kill", "--gr"}, want: []string{"--grace"}},
		{words: []string{"--swarm-dir", "/x", "peek", "b"}, want: []string{"beta"}, dir: "/x"},
		// A flag's value, and the agent's command after --, are not swarm's to complete.
		{words: []string{"spawn", "--name", ""}, want: nil},
		{words: []string{"spawn", "--name", "w", "--", "cl"}, want: nil},
		// A boolean flag takes no value: the next word is a name again.
		{words: []string{"peek", "--all", "a"}, want: []string{"alpha", "alpine"}},
		// Commands that take no names complete none.
		{words: []string{"ls", ""}, want: nil},
		{words: []string{"__comp"}, want: nil},
		// A guide's topics, not workers.
		{words: []string{"guide", "c"}, want: []string{"chains", "checks", "commands", "configuration", "cost"}},
		{words: []string{"guide", "--format", "json", "exit"}, want: []string{"exit-codes"}},
	} {
		dirAsked = ""
		got := completions(app, tc.words, names)
		if !reflect.DeepEqual(got, tc.want) || dirAsked != tc.dir {
			t.Errorf("completions(%q) = %q (state dir %q); want %q (%q)", tc.words, got, dirAsked, tc.want, tc.dir)
		}
	}
}
