package screen

import "testing"

func TestContextUsed(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		pct   int
		ok    bool
	}{
		{"claude: left until auto-compact", []string{"● done", "", "❯ ", "  ⏵⏵ bypass permissions on · Context left until auto-compact: 12%", ""}, 88, true},
		{"codex: context left", []string{"› ", "  38% context left · ? for shortcuts"}, 62, true},
		{"used", []string{"status: ctx: 71%", "❯"}, 71, true},
		{"of context used", []string{"45% of context used"}, 45, true},
		{"not a context figure", []string{"downloading 45%", "❯"}, 0, false},
		{"too far up", []string{"Context left until auto-compact: 5%", "a", "b", "c"}, 0, false},
		{"nothing", nil, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pct, ok := ContextUsed(c.lines)
			if pct != c.pct || ok != c.ok {
				t.Errorf("ContextUsed = %d, %v; want %d, %v", pct, ok, c.pct, c.ok)
			}
		})
	}
}
