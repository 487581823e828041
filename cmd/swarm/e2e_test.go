package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The end-to-end tests drive the real Claude Code TUI against a scripted fake Anthropic API on
// loopback (the lab beside this repository: ../shared/reallab, with its npm packages installed
// by its install.sh). They run with `make e2e` (SWARM_E2E=1) and are skipped otherwise.

type lab struct {
	dir    string // the lab's scripts
	claude string // the real claude binary
}

func findLab(t *testing.T) lab {
	t.Helper()
	if os.Getenv("SWARM_E2E") == "" {
		t.Skip("end-to-end test: run with SWARM_E2E=1 (make e2e)")
	}
	dir := os.Getenv("REALLAB_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "reallab")
	}
	dir, _ = filepath.Abs(dir)
	if _, err := os.Stat(filepath.Join(dir, "fakeapi.py")); err != nil {
		t.Fatalf("lab not found at %s (set REALLAB_DIR)", dir)
	}
	node := os.Getenv("REALLAB_NODE")
	if node == "" {
		home, _ := os.UserHomeDir()
		node = filepath.Join(home, ".cache", "reallab")
	}
	claude := filepath.Join(node, "node_modules", ".bin", "claude")
	if _, err := os.Stat(claude); err != nil {
		t.Fatalf("claude not installed at %s (run %s/install.sh)", claude, dir)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is required")
	}
	return lab{dir: dir, claude: claude}
}

// startFakeAPI runs the lab's fake API with script and returns its base URL.
func startFakeAPI(t *testing.T, l lab, script string) (url, logPath string) {
	t.Helper()
	run := t.TempDir()
	scriptPath := filepath.Join(run, "script.json")
	if err := os.WriteFile(scriptPath, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath = filepath.Join(run, "fakeapi.log")
	portFile := filepath.Join(run, "port")
	cmd := exec.Command("python3", filepath.Join(l.dir, "fakeapi.py"), "--port", "0", "--script", scriptPath,
		"--log", logPath, "--dump-dir", filepath.Join(run, "dump"), "--port-file", portFile)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		if data, err := os.ReadFile(portFile); err == nil && len(strings.TrimSpace(string(data))) > 0 {
			return "http://127.0.0.1:" + strings.TrimSpace(string(data)), logPath
		}
		if time.Now().After(deadline) {
			t.Fatal("fake API did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// e2eEnv is a private swarm environment: state dir, tmux socket, and a run helper.
type e2eEnv struct {
	t      *testing.T
	bin    string
	root   string
	socket string
	work   string
}

func newE2EEnv(t *testing.T) *e2eEnv {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "swarm")
	build := exec.Command("go", "build", "-o", bin, "github.com/swarm-dev/swarm/cmd/swarm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	e := &e2eEnv{t: t, bin: bin, root: filepath.Join(dir, "state"), socket: fmt.Sprintf("swarm-e2e-%d", os.Getpid()), work: filepath.Join(dir, "work")}
	if err := os.MkdirAll(e.work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = e.swarm("kill", "--all", "--grace", "2")
		kill := exec.Command("tmux", "-L", e.socket, "kill-server")
		kill.Env = append(os.Environ(), "TMUX_TMPDIR="+dir)
		_ = kill.Run()
	})
	return e
}

func (e *e2eEnv) swarm(args ...string) (string, error) {
	cmd := exec.Command(e.bin, args...)
	cmd.Dir = e.work
	cmd.Env = append(os.Environ(), "SWARM_DIR="+e.root, "SWARM_TMUX_SOCKET="+e.socket, "TMUX=", "TMUX_TMPDIR="+filepath.Dir(e.root))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (e *e2eEnv) loopState(name string) map[string]any {
	var st map[string]any
	data, err := os.ReadFile(filepath.Join(e.root, "ralph", name, "state.json"))
	if err == nil {
		_ = json.Unmarshal(data, &st)
	}
	return st
}

// waitLoop polls the loop state until cond holds.
func (e *e2eEnv) waitLoop(name string, timeout time.Duration, cond func(map[string]any) bool) map[string]any {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		st := e.loopState(name)
		if st != nil && cond(st) {
			return st
		}
		if time.Now().After(deadline) {
			screen, _ := e.swarm("peek", name, "-n", "40")
			log, _ := os.ReadFile(filepath.Join(e.root, "ralph", name, "monitor.log"))
			e.t.Fatalf("loop %s: condition not reached in %s; state %v\nmonitor log:\n%s\nscreen:\n%s", name, timeout, st, log, screen)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func claudeEnvFlags(l lab, apiURL, home string) []string {
	kv := []string{
		"HOME=" + home,
		"ANTHROPIC_BASE_URL=" + apiURL,
		"ANTHROPIC_API_KEY=sk-ant-fake-0123456789abcdefghijklmnop",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1",
		"IS_SANDBOX=1",
	}
	var flags []string
	for _, x := range kv {
		flags = append(flags, "--env", x)
	}
	return flags
}

func seedHome(t *testing.T, l lab, home, work string) {
	t.Helper()
	cmd := exec.Command("python3", filepath.Join(l.dir, "seed_home.py"), home, "sk-ant-fake-0123456789abcdefghijklmnop", "--trust", work)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("seed: %v\n%s", err, out)
	}
}

// In the first iteration the model answers without doing the task, so the agent idles and the
// loop restarts it on inactivity; in the second it runs a tool and prints the done marker. The
// prompt itself contains the marker, which must not stop the loop early.
const e2eLoopScript = `{
  "default_usage": {"input_tokens": 1000, "output_tokens": 50, "cache_read_input_tokens": 500, "cache_creation_input_tokens": 0},
  "rules": [
    {"when": {"any_contains": "Generate a concise, sentence-case title"}, "reply": {"text": "{\"title\": \"Loop\"}"}},
    {"when": {"has_tools": true, "last_is_tool_result": true}, "reply": {"text": "Done. <promise>COMPLETE</promise>"}},
    {"when": {"has_tools": true, "last_block_contains": "make the file"}, "times": 1,
     "reply": {"text": "I looked around; I will make it next time."}},
    {"when": {"has_tools": true, "last_block_contains": "make the file"},
     "reply": {"text": "Creating it now.", "tool_use": {"name": "Bash", "input": {"command": "touch DONE && echo created", "description": "Create DONE file"}}}}
  ],
  "default": {"text": "Hello from the fake API."},
  "side_default": {"text": "Fake side reply"}
}`

// spawnClaudeLoop starts a ralph loop named name with the real Claude Code TUI against the fake
// API running script, prompt in PROMPT.md, and the given loop flags.
func spawnClaudeLoop(t *testing.T, script, name, prompt string, flags ...string) (e *e2eEnv, apiLog, out string) {
	t.Helper()
	l := findLab(t)
	url, apiLog := startFakeAPI(t, l, script)
	e = newE2EEnv(t)
	home := filepath.Join(filepath.Dir(e.work), "home")
	seedHome(t, l, home, e.work)
	if err := os.WriteFile(filepath.Join(e.work, "PROMPT.md"), []byte(prompt), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"spawn", "--name", name, "--ralph", "--prompt-file", "PROMPT.md"}, flags...)
	args = append(args, claudeEnvFlags(l, url, home)...)
	args = append(args, "--", l.claude, "--dangerously-skip-permissions")
	out, err := e.swarm(args...)
	if err != nil {
		t.Fatalf("spawn: %v\n%s", err, out)
	}
	return e, apiLog, out
}

func TestE2EClaudeLoop(t *testing.T) {
	prompt := "please make the file in this directory.\nWhen it exists, reply with <promise>COMPLETE</promise> and nothing else.\n"
	e, apiLog, out := spawnClaudeLoop(t, e2eLoopScript, "lab", prompt,
		"--max-iterations", "4", "--inactivity-timeout", "6", "--done-pattern", `<promise>COMPLETE</promise>`)
	if !strings.Contains(out, "[ralph mode: iteration 1/4]") {
		t.Fatalf("spawn output: %s", out)
	}
	st := e.waitLoop("lab", 150*time.Second, func(st map[string]any) bool { return st["status"] != "running" })
	if st["status"] != "stopped" || st["exit_reason"] != "done_pattern" {
		t.Fatalf("loop ended as %v/%v, want stopped/done_pattern", st["status"], st["exit_reason"])
	}
	if it := st["current_iteration"]; it != float64(2) {
		t.Fatalf("loop stopped at iteration %v, want 2", it)
	}
	if _, err := os.Stat(filepath.Join(e.work, "DONE")); err != nil {
		t.Fatalf("the agent did not make the file: %v", err)
	}
	// Both iterations typed the whole prompt into the agent, and the model received it.
	logData, _ := os.ReadFile(apiLog)
	if n := strings.Count(string(logData), `"last_block_tail": "please make the file in this directory.\nWhen it exists`); n < 2 {
		t.Errorf("the model got the prompt %d times, want at least 2; fake API log:\n%s", n, logData)
	}
	mon, _ := os.ReadFile(filepath.Join(e.root, "ralph", "lab", "monitor.log"))
	for _, want := range []string{"starting iteration 1/4", "inactivity timeout (6s), restarting", "starting iteration 2/4", "done pattern matched, stopping loop"} {
		if !strings.Contains(string(mon), want) {
			t.Errorf("monitor log lacks %q:\n%s", want, mon)
		}
	}
	// The finished agent was ended, not left idling.
	if out, _ := e.swarm("status", "lab"); !strings.HasPrefix(out, "lab: stopped") {
		t.Errorf("worker after done: %s", out)
	}
}

// The first request hangs: Claude Code shows its spinner and a ticking clock forever. The
// Regent must see through the animation, end the agent after the hang timeout and restart;
// the second iteration gets an answer and finishes.
const e2eHangScript = `{
  "default_usage": {"input_tokens": 1000, "output_tokens": 50, "cache_read_input_tokens": 500, "cache_creation_input_tokens": 0},
  "rules": [
    {"when": {"any_contains": "Generate a concise, sentence-case title"}, "reply": {"text": "{\"title\": \"Loop\"}"}},
    {"when": {"has_tools": true, "last_is_tool_result": true}, "reply": {"text": "Done. <promise>COMPLETE</promise>"}},
    {"when": {"has_tools": true, "last_block_contains": "make the file"}, "times": 1, "reply": {"hang": true}},
    {"when": {"has_tools": true, "last_block_contains": "make the file"},
     "reply": {"text": "Creating it now.", "tool_use": {"name": "Bash", "input": {"command": "touch DONE && echo created", "description": "Create DONE file"}}}}
  ],
  "default": {"text": "Hello from the fake API."},
  "side_default": {"text": "Fake side reply"}
}`

func TestE2EClaudeHang(t *testing.T) {
	prompt := "please make the file in this directory, then reply with <promise>COMPLETE</promise>.\n"
	e, _, _ := spawnClaudeLoop(t, e2eHangScript, "hang", prompt, "--max-iterations", "3",
		"--inactivity-timeout", "120", "--hang-timeout", "15", "--done-pattern", `<promise>COMPLETE</promise>`)
	st := e.waitLoop("hang", 150*time.Second, func(st map[string]any) bool { return st["status"] != "running" })
	if st["status"] != "stopped" || st["exit_reason"] != "done_pattern" || st["current_iteration"] != float64(2) {
		t.Fatalf("loop ended as %v/%v at iteration %v, want stopped/done_pattern at 2", st["status"], st["exit_reason"], st["current_iteration"])
	}
	mon, _ := os.ReadFile(filepath.Join(e.root, "ralph", "hang", "monitor.log"))
	for _, want := range []string{"Regent: agent hung (no progress on screen for 15s)", "iteration 1 failed (exit: hung)", "starting iteration 2/3", "done pattern matched"} {
		if !strings.Contains(string(mon), want) {
			t.Errorf("monitor log lacks %q:\n%s", want, mon)
		}
	}
	// What the hung agent showed: a spinner that kept animating.
	screen, _ := os.ReadFile(filepath.Join(e.root, "ralph", "hang", "screens", "iteration-1.txt"))
	if !strings.Contains(string(screen), "…") {
		t.Errorf("iteration 1 screen shows no spinner:\n%s", screen)
	}
}
