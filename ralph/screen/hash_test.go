package screen

import (
	"crypto/md5"
	"encoding/hex"
	"strings"
	"testing"
)

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestActivityHash(t *testing.T) {
	if got, want := ActivityHash("a  \n\n\x1b[1mb\x1b[0m\u00a0\n"), md5hex("a\nb"); got != want {
		t.Errorf("ActivityHash = %s, want md5 of the non-blank lines %s", got, want)
	}
	screen := readScreen(t, "claude-2.1.197/10_idle_seeded_bypass.txt")
	padded := strings.TrimRight(screen, "\n") + "\n\n\n\n   \n\u00a0\n"
	if ActivityHash(screen) != ActivityHash(padded) {
		t.Error("trailing blank padding changed ActivityHash")
	}
	if ActivityHash(screen) != ActivityHash(strings.ReplaceAll(screen, "\n", "  \n")) {
		t.Error("trailing spaces changed ActivityHash")
	}
	var many []string
	for i := 0; i < 25; i++ {
		many = append(many, "line", "")
	}
	old := strings.Join(many, "\n")
	if ActivityHash("changed\n"+old) != ActivityHash(old) {
		t.Error("a line above the last 20 non-blank lines changed ActivityHash")
	}
	if ActivityHash(old+"\nnew") == ActivityHash(old) {
		t.Error("a new last line did not change ActivityHash")
	}
	// The hang animates: the raw hash must see that, or the masking would be pointless.
	if ActivityHash(readScreen(t, "claude-2.1.197/24_hang_t5.txt")) == ActivityHash(readScreen(t, "claude-2.1.197/24_hang_t60.txt")) {
		t.Error("ActivityHash equal for 24_hang_t5 and 24_hang_t60")
	}
}

func TestSubstantiveHashEqualWhileOnlyAnimating(t *testing.T) {
	groups := [][]string{
		{"claude-2.1.197/24_hang_t5.txt", "claude-2.1.197/24_hang_t15.txt", "claude-2.1.197/24_hang_t30.txt", "claude-2.1.197/24_hang_t60.txt"},
		{"claude-2.1.197/26_stall_t10.txt", "claude-2.1.197/26_stall_t45.txt", "claude-2.1.197/26_stall_t95.txt"},
		// Spinner glyph, verb and counters only.
		{"claude-2.1.197/12_working_t01.txt", "claude-2.1.197/12_working_t02.txt", "claude-2.1.197/12_working_t03.txt", "claude-2.1.197/12_working_t04.txt", "claude-2.1.197/12_working_t05.txt", "claude-2.1.197/12_working_t06.txt"},
		// The tool bullet blinks (● / blank) while "Running…" waits.
		{"claude-2.1.197/12_working_t07.txt", "claude-2.1.197/12_working_t08.txt", "claude-2.1.197/12_working_t09.txt", "claude-2.1.197/12_working_t10.txt", "claude-2.1.197/12_working_t11.txt", "claude-2.1.197/12_working_t12.txt"},
		// Token arrows flip between ↑ and ↓.
		{"claude-2.1.197/12_working_t13.txt", "claude-2.1.197/12_working_t14.txt", "claude-2.1.197/12_working_t15.txt", "claude-2.1.197/12_working_t16.txt", "claude-2.1.197/12_working_t17.txt"},
		// The retry countdown of one attempt.
		{"claude-2.1.197/20_err429_t2.txt", "claude-2.1.197/20_err429_t4.txt"},
		{"claude-2.1.197/20_err429_t6.txt", "claude-2.1.197/20_err429_t8.txt"},
		// opencode's progress bar runs while the API hangs.
		{"opencode-1.18.33/03_working.txt", "opencode-1.18.33/06_hang_t10.txt"},
	}
	for _, g := range groups {
		first := SubstantiveHash(readScreen(t, g[0]))
		for _, name := range g[1:] {
			if h := SubstantiveHash(readScreen(t, name)); h != first {
				t.Errorf("SubstantiveHash(%s) != SubstantiveHash(%s)", name, g[0])
			}
		}
	}
}

func TestSubstantiveHashChangesOnOutput(t *testing.T) {
	pairs := [][2]string{
		{"claude-2.1.197/12_working_t06.txt", "claude-2.1.197/12_working_t07.txt"}, // the reply and the tool call appeared
		{"claude-2.1.197/12_working_t12.txt", "claude-2.1.197/12_working_t13.txt"}, // "Running…" became "created"
		{"claude-2.1.197/12_working_t18.txt", "claude-2.1.197/12_working_t19.txt"}, // the final answer appeared
		{"claude-2.1.197/20_err429_t4.txt", "claude-2.1.197/20_err429_t6.txt"},     // a new retry attempt
		{"claude-2.1.197/24_hang_t60.txt", "claude-2.1.197/25_hang_after_esc.txt"},
		{"codex-0.169.0/53_codex_working.txt", "codex-0.169.0/54_codex_streaming.txt"},
	}
	for _, p := range pairs {
		if SubstantiveHash(readScreen(t, p[0])) == SubstantiveHash(readScreen(t, p[1])) {
			t.Errorf("SubstantiveHash(%s) == SubstantiveHash(%s), want different", p[0], p[1])
		}
	}
}

func TestSubstantiveHashMasks(t *testing.T) {
	tests := []struct{ a, b string }{
		{"◦ Working (12s • esc to interrupt)", "• Working (1m 3s • esc to interrupt)"},
		{"  Worked for 5s • 19:34", "  Worked for 1h 3m • 19:34"},
		{"tokens used 650", "tokens used 1,204"},
		{"(4s · ↓ 25 tokens)", "(9s · ↑ 1.2k tokens)"},
		{"✻ API error · Retrying in 3s · attempt 3/10", "✢ API error · Retrying in 18s · attempt 3/10"},
		{"⠋ Counting electrons (esc to cancel, 2s)", "⠏ Reticulating splines (esc to cancel, 40s)"},
		{"✶ Deciphering…", "* Deciphering… (1m 2s)"},
	}
	for _, tt := range tests {
		if SubstantiveHash(tt.a) != SubstantiveHash(tt.b) {
			t.Errorf("SubstantiveHash(%q) != SubstantiveHash(%q)", tt.a, tt.b)
		}
		if ActivityHash(tt.a) == ActivityHash(tt.b) {
			t.Errorf("ActivityHash(%q) == ActivityHash(%q), the raw screens differ", tt.a, tt.b)
		}
	}
	differ := []struct{ a, b string }{
		{"✻ API error · Retrying in 3s · attempt 3/10", "✻ API error · Retrying in 3s · attempt 4/10"},
		{"● Creating it now.", "● Creating it later."},
		{"$ ", "$ \nhello"},
	}
	for _, tt := range differ {
		if SubstantiveHash(tt.a) == SubstantiveHash(tt.b) {
			t.Errorf("SubstantiveHash(%q) == SubstantiveHash(%q), want different", tt.a, tt.b)
		}
	}
}
