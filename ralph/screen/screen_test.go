package screen

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

const screensDir = "testdata/screens"

func readScreen(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(screensDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	ready  = func(agent string) State { return State{Kind: Ready, Agent: agent} }
	busy   = func(agent string) State { return State{Kind: Busy, Agent: agent} }
	dialog = func(name, agent string) State {
		return State{Kind: Dialog, Dialog: name, Agent: agent}
	}
	unknown = func(agent string) State { return State{Kind: Unknown, Agent: agent} }
)

// captureWant is the verdict of Classify on every captured screen, per release (a folder per
// agent and version), checked by looking at each file.
var captureWant = map[string]State{
	// Claude exits after the failed preflight, leaving the message on screen.
	"claude-2.1.197/01_fresh_home_no_seed_connectivity_fail.txt": dialog("connectivity", "claude"),
	"claude-2.1.197/02_onboarding_step1.txt":                     dialog("theme", "claude"),
	"claude-2.1.197/03_onboarding_step2.txt":                     dialog("security-notes", "claude"),
	"claude-2.1.197/04_onboarding_step3.txt":                     dialog("trust-folder", "claude"),
	"claude-2.1.197/05_idle_after_onboarding.txt":                ready("claude"),
	// "/exit" typed but not submitted: input box live, slash-command menu as footer.
	"claude-2.1.197/06_typing_slash_exit.txt": ready("claude"),
	// Claude is gone; its last frame stays, with the shell's output far below it.
	"claude-2.1.197/07_after_exit.txt":                  unknown("claude"),
	"claude-2.1.197/08_bypass_permissions_dialog.txt":   dialog("bypass-permissions", "claude"),
	"claude-2.1.197/09_idle_bypass_mode.txt":            ready("claude"),
	"claude-2.1.197/10_idle_seeded_bypass.txt":          ready("claude"),
	"claude-2.1.197/11_prompt_typed.txt":                ready("claude"),
	"claude-2.1.197/12_working_t01.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t02.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t03.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t04.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t05.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t06.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t07.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t08.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t09.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t10.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t11.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t12.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t13.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t14.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t15.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t16.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t17.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t18.txt":                 busy("claude"),
	"claude-2.1.197/12_working_t19.txt":                 ready("claude"), // "✻ Sautéed for 9s": turn over
	"claude-2.1.197/12_working_t20.txt":                 ready("claude"),
	"claude-2.1.197/12_working_t21.txt":                 ready("claude"),
	"claude-2.1.197/12_working_t22.txt":                 ready("claude"),
	"claude-2.1.197/12_working_t23.txt":                 ready("claude"),
	"claude-2.1.197/12_working_t24.txt":                 ready("claude"),
	"claude-2.1.197/13_after_one_ctrl_d.txt":            ready("claude"), // "Press Ctrl-D again to exit" footer only
	"claude-2.1.197/14_after_two_ctrl_d.txt":            unknown("claude"),
	"claude-2.1.197/15_seeded_but_key_not_approved.txt": dialog("api-key", "claude"),
	"claude-2.1.197/20_err429_t2.txt":                   busy("claude"),
	"claude-2.1.197/20_err429_t4.txt":                   busy("claude"),
	"claude-2.1.197/20_err429_t6.txt":                   busy("claude"),
	"claude-2.1.197/20_err429_t8.txt":                   busy("claude"),
	"claude-2.1.197/20_err429_t10.txt":                  busy("claude"),
	"claude-2.1.197/20_err429_t12.txt":                  busy("claude"),
	// Esc puts the unanswered prompt back into the box: idle, with text typed.
	"claude-2.1.197/21_err429_after_esc.txt":             ready("claude"),
	"claude-2.1.197/22_err401.txt":                       busy("claude"),
	"claude-2.1.197/23_err401_final_maxretries1.txt":     ready("claude"),
	"claude-2.1.197/23_err429_final_maxretries1.txt":     ready("claude"),
	"claude-2.1.197/23_err500_final_maxretries1.txt":     ready("claude"),
	"claude-2.1.197/23_err529_final_maxretries1.txt":     ready("claude"),
	"claude-2.1.197/24_hang_t5.txt":                      busy("claude"),
	"claude-2.1.197/24_hang_t15.txt":                     busy("claude"),
	"claude-2.1.197/24_hang_t30.txt":                     busy("claude"),
	"claude-2.1.197/24_hang_t60.txt":                     busy("claude"),
	"claude-2.1.197/25_hang_after_esc.txt":               ready("claude"),
	"claude-2.1.197/26_stall_t10.txt":                    busy("claude"),
	"claude-2.1.197/26_stall_t45.txt":                    busy("claude"),
	"claude-2.1.197/26_stall_t95.txt":                    busy("claude"),
	"claude-2.1.197/27_cost_cmd.txt":                     unknown("claude"), // /cost panel hides the input box
	"claude-2.1.197/30_run_script_idle.txt":              ready("claude"),
	"claude-2.1.197/31_idle_default_permission_mode.txt": ready("claude"),
	"claude-2.1.197/32_bash_permission_prompt.txt":       dialog("tool-permission", "claude"),
	"claude-2.1.197/33_after_permission_yes.txt":         ready("claude"),
	"claude-2.1.197/34_multiline_pasted_bracketed.txt":   ready("claude"),
	"claude-2.1.197/35_multiline_after_submit.txt":       ready("claude"),
	"claude-2.1.197/36_sendkeys_multiline.txt":           ready("claude"),
	"claude-2.1.197/37_long_paste_placeholder.txt":       ready("claude"),
	"claude-2.1.197/38_after_ctrl_c_clear.txt":           ready("claude"),
	// The footer lost "esc to interrupt" to a paste hint; the spinner still shows work.
	"claude-2.1.197/39_queued_message_while_working.txt": busy("claude"),
	"claude-2.1.197/40_after_queue_processed.txt":        ready("claude"),
	"claude-2.1.197/41_exit_ctrl_c_twice.txt":            unknown("claude"),
	"codex-0.169.0/50_codex_first_screen.txt":            ready("codex"),
	"codex-0.169.0/51_codex_idle.txt":                    ready("codex"),
	"codex-0.169.0/52_codex_after_tool.txt":              ready("codex"),
	"codex-0.169.0/53_codex_working.txt":                 busy("codex"),
	// Captured after the stream had finished ("Worked for 5s"), no "Working (" line.
	"codex-0.169.0/54_codex_streaming.txt":        ready("codex"),
	"codex-0.169.0/55_codex_idle_after.txt":       ready("codex"),
	"codex-0.169.0/56_codex_429.txt":              ready("codex"),
	"codex-0.169.0/57_codex_hang_20s.txt":         busy("codex"),
	"codex-0.169.0/58_codex_hang_after_esc.txt":   ready("codex"),
	"codex-0.169.0/59_codex_after_one_ctrl_c.txt": unknown(""),
	"codex-0.169.0/60_codex_onrequest_idle.txt":   ready("codex"),
	"codex-0.169.0/61_codex_onrequest_tool.txt":   ready("codex"),
	"codex-0.169.0/62_codex_warnings.txt":         unknown("codex"), // warnings overlay hides the composer
	// A spent usage limit: Claude Code's menu hides the composer; after Esc it is idle
	// (the loop acts on the limit message itself, see UsageLimit).
	"claude-2.1.197/70_claude_usage_limit_menu.txt":      unknown("claude"),
	"claude-2.1.197/71_claude_usage_limit_after_esc.txt": ready("claude"),
	// Made from the 2.1.197 captures: macOS draws the message bullet as ⏺, and older releases
	// put an API error on a ⎿ line under the prompt.
	"claude-2.1.197/23_err529_final_maxretries1_macos-bullet.txt": ready("claude"),
	"claude-2.1.197/23_err529_elbow-line_edited.txt":              ready("claude"),

	// Claude Code 2.1.332: first-run menus without numbers; errors leave a placeholder in the box.
	"claude-2.1.332/dialog_api-key.txt":            dialog("api-key", "claude"),
	"claude-2.1.332/dialog_theme.txt":              dialog("theme", "claude"),
	"claude-2.1.332/dialog_bypass-permissions.txt": dialog("bypass-permissions", "claude"),
	"claude-2.1.332/32_bash_permission_prompt.txt": dialog("tool-permission", "claude"),
	// Captured: `rm -rf $(cat missing.txt)` under --dangerously-skip-permissions.
	"claude-2.1.332/33_dangerous_rm_bypass.txt":           dialog("dangerous-command", "claude"),
	"claude-2.1.332/31_idle_auto_mode_after_tool.txt":     ready("claude"),
	"claude-2.1.332/dialog_trust-folder.txt":              dialog("trust-folder", "claude"),
	"claude-2.1.332/10_idle_seeded_bypass.txt":            ready("claude"),
	"claude-2.1.332/12_idle_after_reply.txt":              ready("claude"),
	"claude-2.1.332/12_idle_after_reply_macos-bullet.txt": ready("claude"),
	"claude-2.1.332/23_err429_final.txt":                  ready("claude"),
	"claude-2.1.332/23_err529_final.txt":                  ready("claude"),
	"claude-2.1.332/23_err529_final_macos-bullet.txt":     ready("claude"),
	"claude-2.1.332/24_hang_t4.txt":                       busy("claude"),
	"claude-2.1.332/70_usage_limit_footer.txt":            ready("claude"),

	// Codex 0.171.0.
	"codex-0.171.0/51_idle.txt":             ready("codex"),
	"codex-0.171.0/55_idle_after_reply.txt": ready("codex"),
	"codex-0.171.0/56_429.txt":              ready("codex"),
	"codex-0.171.0/57_hang_t4.txt":          busy("codex"),
	"codex-0.171.0/58_hang_after_esc.txt":   ready("codex"),

	// Gemini CLI 0.61.0: a boxed menu for first-run trust, tool permission and a model the
	// API does not know; "esc to cancel" on its spinner line while a turn runs.
	"gemini-0.61.0/00_first_run_trust_folder.txt": dialog("trust-folder", "gemini"),
	"gemini-0.61.0/01_idle.txt":                   ready("gemini"),
	"gemini-0.61.0/02_working.txt":                busy("gemini"),
	"gemini-0.61.0/04_shell_permission.txt":       dialog("tool-permission", "gemini"),
	"gemini-0.61.0/05_idle_after_reply.txt":       ready("gemini"),
	"gemini-0.61.0/06_hang_t6.txt":                busy("gemini"),
	"gemini-0.61.0/07_hang_after_esc.txt":         ready("gemini"),
	"gemini-0.61.0/08_model_not_found_menu.txt":   dialog("model-access", "gemini"),
	// --yolo draws the prompt as * rather than >.
	"gemini-0.61.0/09_idle_yolo.txt": ready("gemini"),
	// A 429: it retries quietly under its spinner.
	"gemini-0.61.0/10_429_retrying_t25.txt": busy("gemini"),
	// The Enter pressed right after a paste, taken for a newline in it on a loaded machine:
	// the prompt sits in the input, not submitted (only an empty input line reads as ready).
	"gemini-0.61.0/11_prompt_left_after_enter.txt": unknown("gemini"),
	// A refused request (400), not retried: the error is its last word, its AfterAgent hook
	// still running (its own hooks' line), at its prompt.
	"gemini-0.61.0/12_err400_final.txt": ready("gemini"),

	// Qwen Code 0.24.4 (a Gemini CLI fork): no first-run dialog with an API key in its
	// settings; the input line sits between two rules over a footer that names the approval
	// mode, and reads as ready whatever it holds: after a turn it shows a suggestion of what
	// to type next, drawn dim, which a capture cannot tell from typed text. "esc to cancel" on
	// its spinner line while a turn runs, or while it retries quietly after a 429.
	"qwen-0.24.4/01_idle_yolo.txt":                        ready("qwen"),
	"qwen-0.24.4/02_working.txt":                          busy("qwen"),
	"qwen-0.24.4/03_prompt_typed.txt":                     ready("qwen"),
	"qwen-0.24.4/04_shell_permission.txt":                 dialog("tool-permission", "qwen"),
	"qwen-0.24.4/05_idle_after_reply_suggestion.txt":      ready("qwen"),
	"qwen-0.24.4/06_idle_after_permission_suggestion.txt": ready("qwen"),
	"qwen-0.24.4/07_prompt_back_after_esc.txt":            ready("qwen"),
	"qwen-0.24.4/09_idle_auto_mode.txt":                   ready("qwen"),
	"qwen-0.24.4/10_429_retrying_t20.txt":                 busy("qwen"),
	"qwen-0.24.4/23_err500_final.txt":                     ready("qwen"),

	// GitHub Copilot CLI 1.0.102: Claude Code's input box over a footer of its own, which
	// names the mode while idle and shows a spinner and "Working" while a turn runs (and while
	// it retries a failed request, quietly for a 429). A folder it was not told to trust asks
	// first; without --yolo a shell command asks for permission in a boxed menu.
	"copilot-1.0.102/01_trust_folder.txt":         dialog("trust-folder", "copilot"),
	"copilot-1.0.102/02_idle_yolo.txt":            ready("copilot"),
	"copilot-1.0.102/03_prompt_typed.txt":         ready("copilot"),
	"copilot-1.0.102/04_working.txt":              busy("copilot"),
	"copilot-1.0.102/05_idle_after_reply.txt":     ready("copilot"),
	"copilot-1.0.102/06_err400_ending.txt":        busy("copilot"),
	"copilot-1.0.102/07_err400_final.txt":         ready("copilot"),
	"copilot-1.0.102/08_err500_retrying.txt":      busy("copilot"),
	"copilot-1.0.102/09_err500_final.txt":         ready("copilot"),
	"copilot-1.0.102/10_429_retrying.txt":         busy("copilot"),
	"copilot-1.0.102/11_shell_permission.txt":     dialog("tool-permission", "copilot"),
	"copilot-1.0.102/12_idle_manual_approval.txt": ready("copilot"),
	"copilot-1.0.102/13_working_slow.txt":         busy("copilot"),
	"copilot-1.0.102/14_429_final.txt":            ready("copilot"),

	// opencode 1.18.33: no first-run dialog; its input box is a ┃ bar closed by ╹▀▀▀, and
	// "esc interrupt" sits under it while a turn runs.
	"opencode-1.18.33/01_idle.txt":             ready("opencode"),
	"opencode-1.18.33/02_prompt_typed.txt":     ready("opencode"),
	"opencode-1.18.33/03_working.txt":          busy("opencode"),
	"opencode-1.18.33/04_working_tool.txt":     busy("opencode"),
	"opencode-1.18.33/05_idle_after_reply.txt": ready("opencode"),
	"opencode-1.18.33/06_hang_t10.txt":         busy("opencode"),
	// A 429 in a wide terminal: the retry message between the bar and "esc interrupt",
	// the sidebar beside the transcript.
	"opencode-1.18.33/07_429_retrying_sidebar.txt": busy("opencode"),
}

const rule = "────────────────────────────────────────"

func TestClassifySynthetic(t *testing.T) {
	tests := []struct {
		name   string
		screen string
		want   State
	}{
		{"empty", "", unknown("")},
		{"blank padding", "\n   \n\u00a0\n", unknown("")},
		{"bash user@host", "user@host:~$ ls\nfile1  file2\nuser@host:~$ \n\n\n", ready("shell")},
		{"bare dollar", "$ ", ready("shell")},
		{"root hash", "root@box:/work# ", ready("shell")},
		{"bracketed prompt", "[dev@box src]$ ", ready("shell")},
		{"venv prompt", "(venv) dev@box:~/p$ ", ready("shell")},
		{"bash version prompt", "bash-5.2$ ", ready("shell")},
		{"zsh percent", "dev@mac ~ % ", ready("shell")},
		{"python repl", "Python 3.12.3\n>>> ", ready("shell")},
		{"ipython", "In [3]: ", ready("shell")},
		{"starship glyph", "~/src on main\n❯ ", ready("shell")},
		{"nbsp after glyph", "~/src\n❯\u00a0\u00a0", ready("shell")},
		{"command typed at shell", "user@host:~$ make test", unknown("")},
		{"progress is not a prompt", "Downloading 50%", unknown("")},
		{"shell output above prompt", "Working (3s) on the build\nesc to interrupt\n$ ", ready("shell")},
		{"aider prompt", "Aider v0.86.1\nMain model: sonnet\n\n> ", ready("aider")},
		{"aider mode prompt", "Aider v0.86.1\nask> ", ready("aider")},
		{
			"gemini idle",
			" ███ GEMINI\n\nTips for getting started:\n╭────────────────────────────────────────╮\n" +
				"│ >   Type your message or @path/to/file │\n╰────────────────────────────────────────╯\n" +
				"~/proj      no sandbox      gemini-2.5-pro (100% context left)\n",
			ready("gemini"),
		},
		{
			"gemini busy",
			"⠼ Reticulating splines (esc to cancel, 3s)\n╭────────────────────────────────────────╮\n" +
				"│ >   Type your message or @path/to/file │\n╰────────────────────────────────────────╯\n" +
				"~/proj      no sandbox      gemini-2.5-pro (100% context left)\n",
			busy("gemini"),
		},
		{
			"opencode idle",
			"opencode v0.3.1\n\n┃                                        ┃\n┃  >                                     ┃\n┃                                        ┃\n  enter send\n",
			ready("opencode"),
		},
		{"opencode working", "opencode v0.3.1\n\n  Working...\n┃  >   ┃\n", busy("opencode")},
		{
			"claude box with plain spaces",
			"● Done.\n\n" + rule + "\n❯   \n" + rule + "\n  ? for shortcuts\n",
			ready("claude"),
		},
		{
			// A menu cursor directly under a rule must not pass for the input box.
			"trust menu under a rule",
			rule + "\n❯ 1. Yes, I trust this folder\n  2. No, exit\n" + rule + "\n Enter to confirm · Esc to cancel\n",
			dialog("trust-folder", "claude"),
		},
		{
			// Dialog text left in the transcript above a live input box is history.
			"stale dialog text above box",
			"❯ what does \"Do you want to proceed?\" mean\n\n● It is a question.\n" +
				"  ❯ 1. Yes\n\n" + rule + "\n❯\u00a0\n" + rule + "\n  ? for shortcuts\n",
			ready("claude"),
		},
		{
			"claude older trust wording",
			" Do you trust the files in this folder?\n\n /home/dev/x\n\n ❯ 1. Yes, proceed\n   2. No, exit\n",
			dialog("trust-folder", "claude"),
		},
		{"generic press enter", "Update installed.\n\nPress Enter to continue", dialog("press-enter", "")},
		{
			"press enter long ago is not a dialog",
			"Press Enter to continue\nok\nmore\noutput\n$ ",
			ready("shell"),
		},
		{
			"reply mentioning work above idle box",
			"● Working through the list, I am retrying in a moment.\n\n" + rule + "\n❯\u00a0\n" + rule + "\n  ? for shortcuts\n",
			ready("claude"),
		},
		{
			"claude retrying without box",
			"✻ API error · Retrying in 4s · attempt 2/10\n",
			busy("claude"),
		},
		{
			"codex typed text",
			"  >_ OpenAI Codex (v0.169.0)\n\n› fix the tests\n\n  ? for shortcuts\n",
			ready("codex"),
		},
		{"codex composer without codex marks is a zsh prompt", "~/src\n› ", ready("shell")},
		{
			"claude box followed by shell prompt after exit",
			rule + "\n❯\u00a0\n" + rule + "\n  ? for shortcuts\n\nResume this session with:\nclaude --resume 1234\ndev@box:~/w$ ",
			ready("shell"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.screen, nil); got != tt.want {
				t.Errorf("Classify = %+v (%s), want %+v (%s)", got, got.Kind, tt.want, tt.want.Kind)
			}
		})
	}
}

func TestClassifyReadyPattern(t *testing.T) {
	pat := regexp.MustCompile(`^myrepl ready ::$`)
	tests := []struct {
		name   string
		screen string
		pat    *regexp.Regexp
		want   State
	}{
		{"matches last line", "booting\nmyrepl ready ::\n\n", pat, ready("")},
		{"nil pattern", "booting\nmyrepl ready ::\n", nil, unknown("")},
		{"matches within last five", "myrepl ready ::\na\nb\nc\n\nd\n", pat, ready("")},
		{"too far up", "myrepl ready ::\na\nb\nc\nd\ne\n", pat, unknown("")},
		{"busy wins", "myrepl ready ::\nthinking (esc to interrupt)\n", pat, busy("")},
		{"dialog wins", "myrepl ready ::\nPress Enter to continue\n", pat, dialog("press-enter", "")},
		{"ansi stripped before matching", "\x1b[32mmyrepl ready ::\x1b[0m  \n", pat, ready("")},
		{"nbsp trimmed before matching", "myrepl ready ::\u00a0\u00a0\n", pat, ready("")},
		{
			"keeps the recognised agent",
			"Claude Code v2.1.197\nwaiting ::\n",
			regexp.MustCompile(`^waiting ::$`),
			ready("claude"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.screen, tt.pat); got != tt.want {
				t.Errorf("Classify = %+v (%s), want %+v (%s)", got, got.Kind, tt.want, tt.want.Kind)
			}
		})
	}
}
