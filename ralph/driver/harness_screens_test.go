package driver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/screen"
)

// The loop is driven against an in-memory tmux, a fake process table and a fake clock, so
// every transition runs in milliseconds and timeouts of minutes are exact.

const loopName = "agent"

var loopRule = strings.Repeat("─", 80)

// claudeIdle is Claude Code waiting for input, below whatever the transcript shows.
func claudeIdle(transcript ...string) string {
	lines := append([]string{}, transcript...)
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	lines = append(lines, loopRule, "❯\u00a0", loopRule, "  ? for shortcuts")
	return strings.Join(lines, "\n")
}

// claudeTyped is the input box holding pasted text that was not submitted yet.
func claudeTyped(text string) string {
	lines := []string{loopRule}
	for i, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if i == 0 {
			lines = append(lines, "❯\u00a0"+l)
		} else {
			lines = append(lines, "  "+l)
		}
	}
	lines = append(lines, loopRule, "  ? for shortcuts")
	return strings.Join(lines, "\n")
}

// echo is how Claude shows a submitted message in its transcript.
func echo(prompt string) []string {
	var out []string
	for i, l := range strings.Split(strings.TrimRight(prompt, "\n"), "\n") {
		if i == 0 {
			out = append(out, "❯ "+l)
		} else {
			out = append(out, "  "+l)
		}
	}
	return out
}

// claudeBusy is Claude working on a prompt: its echo, any output so far, the spinner.
func claudeBusy(prompt string, elapsed time.Duration, output ...string) string {
	lines := append(echo(prompt), "")
	lines = append(lines, output...)
	lines = append(lines, "",
		fmt.Sprintf("✻ Working… (%ds · esc to interrupt)", int(elapsed.Seconds())),
		"", loopRule, "❯\u00a0", loopRule, "  esc to interrupt")
	return strings.Join(lines, "\n")
}

func readBypassDialog(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "screen", "testdata", "screens", "claude-2.1.197", "08_bypass_permissions_dialog.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The fake agent is only useful if the classifier reads its screens as the real ones.
func TestFakeAgentScreens(t *testing.T) {
	prompt := "Study PLAN.md.\nDo the next task."
	cases := []struct {
		name   string
		screen string
		want   screen.State
	}{
		{"idle", claudeIdle(), screen.State{Kind: screen.Ready, Agent: "claude"}},
		{"idle after a turn", claudeIdle(append(echo(prompt), "", "● Done.")...), screen.State{Kind: screen.Ready, Agent: "claude"}},
		{"typed", claudeTyped(prompt), screen.State{Kind: screen.Ready, Agent: "claude"}},
		{"busy", claudeBusy(prompt, 5*time.Second), screen.State{Kind: screen.Busy, Agent: "claude"}},
		{"dialog", readBypassDialog(t), screen.State{Kind: screen.Dialog, Dialog: "bypass-permissions", Agent: "claude"}},
	}
	for _, c := range cases {
		if got := screen.Classify(c.screen, nil); got != c.want {
			t.Errorf("%s: Classify = %+v, want %+v\n%s", c.name, got, c.want, c.screen)
		}
	}
	if screen.ActivityHash(claudeIdle()) == screen.ActivityHash(claudeTyped(prompt)) {
		t.Error("pasting must change the screen's activity hash")
	}
}
