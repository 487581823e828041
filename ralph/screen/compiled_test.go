package screen

import "testing"

// Every pattern compiles: a mistake in one would otherwise show only when a screen first
// needs it.
func TestEveryPatternCompiles(t *testing.T) {
	if len(allPatterns) < 30 {
		t.Fatalf("%d patterns registered; the package has more", len(allPatterns))
	}
	for i, re := range allPatterns {
		if re() == nil {
			t.Errorf("pattern %d did not compile", i)
		}
	}
}
