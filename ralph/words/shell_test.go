package words

import "testing"

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{"/a/b-c.d": "/a/b-c.d", "a b": "'a b'", "it's": `'it'\''s'`, "": "''"} {
		if got := ShellWord(in); got != want {
			t.Errorf("ShellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
