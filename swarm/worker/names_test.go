package worker

import (
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	good := []string{"a", "w1", "agent-7", "A_b-C", strings.Repeat("x", 48), "0lead"}
	for _, n := range good {
		if err := ValidateName(n); err != nil {
			t.Errorf("ValidateName(%q) = %v, want ok", n, err)
		}
	}
	bad := []string{"", "../x", "a/b", "w:1", "a.b", "x#(cmd)", "two\nlines", "sp ace", "-lead", "_lead",
		strings.Repeat("x", 49), "tab\tname", "semi;colon", "dollar$", "%0", "=w", "ünï"}
	for _, n := range bad {
		err := ValidateName(n)
		if err == nil {
			t.Errorf("ValidateName(%q) accepted a bad name", n)
			continue
		}
		if strings.Contains(n, "\n") && !strings.Contains(err.Error(), `"two\nlines"`) {
			t.Errorf("multi-line name not shown escaped: %v", err)
		}
	}
}
