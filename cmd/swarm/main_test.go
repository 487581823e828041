package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/swarm-dev/swarm/ralph/proc"
	"github.com/swarm-dev/swarm/swarm"
	"github.com/swarm-dev/swarm/swarm/demoagent"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"swarm":     func() { os.Exit(swarm.Main()) },
		"fakeagent": func() { os.Exit(demoagent.Main(os.Args[1:])) },
		// squatsocket USER: as USER, hold the name the Regent's socket could be predicted to have.
		"squatsocket": func() { os.Exit(squatMain()) },
		// netprobe URL: a GET through the environment's proxy, as an agent's HTTP client makes it.
		"netprobe": func() { os.Exit(netprobeMain()) },
		// eventlog KIND [FIELD=VALUE]...: events appended as swarm appends them (eventlog_test.go).
		"eventlog": func() { os.Exit(eventlogMain()) },
		// The fake agent playing Claude Code's and Codex's own signals, under their names.
		"claude": func() { os.Exit(demoagent.Main(append([]string{"--like", "claude"}, os.Args[1:]...))) },
		"codex":  func() { os.Exit(demoagent.Main(append([]string{"--like", "codex"}, os.Args[1:]...))) },
	})
}

var serial atomic.Int64

func TestScripts(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is required for the CLI tests (apt-get install -y tmux)")
	}
	// Each script removes its own directory of SSH control sockets under /tmp (a state
	// directory too deep for a socket's path puts them there); the parent they share goes
	// once all are done (the scripts run after this function returns), unless something
	// else uses it.
	t.Cleanup(func() { _ = os.Remove(fmt.Sprintf("/tmp/swarm-ssh-%d", os.Getuid())) })
	testscript.Run(t, testscript.Params{
		Files: scenarioFiles(t),
		// Inside the test's own temp dir: testscript removes its parent work directory only
		// when every script ran, so a -run filter would leave an empty one behind in /tmp.
		WorkdirRoot:         t.TempDir(),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup:               setupScript,
		Cmds:                scriptCommands(),
		Condition:           scriptCondition,
	})
}

// scenarioDir holds the scenarios, one folder per area (loop, worker, hosts, land, ...).
var scenarioDir = filepath.Join("..", "..", "testdata", "script")

// scenarioFiles are the scenarios of every area. A scenario is run by its file's name alone
// (TestScripts/NAME, whatever its folder), so no two may share one.
func scenarioFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join(scenarioDir, "*", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios under %s/AREA/ (%v)", scenarioDir, err)
	}
	if stray, _ := filepath.Glob(filepath.Join(scenarioDir, "*.txtar")); len(stray) > 0 {
		t.Fatalf("a scenario belongs in its area's folder, not in %s: %s", scenarioDir, strings.Join(stray, ", "))
	}
	seen := map[string]string{}
	for _, f := range files {
		name := filepath.Base(f)
		if other, ok := seen[name]; ok {
			t.Fatalf("two scenarios named %s (%s and %s): names must be unique across areas", strings.TrimSuffix(name, ".txtar"), other, f)
		}
		seen[name] = f
	}
	return files
}

// setupScript gives every script its own state directory, its own private tmux server and a
// home directory, and makes sure nothing it started outlives it.
func setupScript(env *testscript.Env) error {
	work := env.WorkDir
	// testscript's own ${/} and ${:} (unused here) are no names a shell can export: workers
	// would start under swarm's fallback wrapper instead of their start script.
	vars := env.Vars[:0]
	for _, kv := range env.Vars {
		if k, _, _ := strings.Cut(kv, "="); k != "/" && k != ":" && k != "$" {
			vars = append(vars, kv)
		}
	}
	env.Vars = vars
	socket := fmt.Sprintf("swarm-test-%d-%d", os.Getpid(), serial.Add(1))
	env.Setenv("SWARM_DIR", filepath.Join(work, ".swarm"))
	env.Setenv("SWARM_TMUX_SOCKET", socket)
	env.Setenv("HOME", filepath.Join(work, "home"))
	env.Setenv("TMUX", "")
	// tmux puts its socket under TMUX_TMPDIR; inside the work dir it goes away with the script.
	env.Setenv("TMUX_TMPDIR", work)
	env.Setenv("GIT_AUTHOR_NAME", "swarm test")
	env.Setenv("GIT_AUTHOR_EMAIL", "test@example.com")
	env.Setenv("GIT_COMMITTER_NAME", "swarm test")
	env.Setenv("GIT_COMMITTER_EMAIL", "test@example.com")
	env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	if err := os.MkdirAll(filepath.Join(work, "home"), 0o700); err != nil {
		return err
	}
	marker := "SWARM_DIR=" + filepath.Join(work, ".swarm")
	env.Defer(func() {
		// A script that stopped its tmux server (SIGSTOP) and failed before resuming it
		// would otherwise leave kill-server waiting for it forever.
		for _, pid := range proc.Tagged(marker) {
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
		killServers(work, socket)
		if left := reapStragglers(marker); len(left) > 0 {
			env.T().Fatal(fmt.Sprintf("script left processes running: %s", strings.Join(left, "; ")))
		}
	})
	return nil
}

// killServers ends the script's tmux server and any other it started (a worker on its own
// socket, the default server under the script's TMUX_TMPDIR).
func killServers(work, socket string) {
	sockets := []string{socket}
	if found, err := filepath.Glob(filepath.Join(work, fmt.Sprintf("tmux-%d", os.Getuid()), "*")); err == nil {
		for _, f := range found {
			sockets = append(sockets, filepath.Base(f))
		}
	}
	for _, s := range sockets {
		kill := exec.Command("tmux", "-L", s, "kill-server")
		kill.Env = append(os.Environ(), "TMUX_TMPDIR="+work)
		_ = kill.Run()
	}
}

// reapStragglers kills every process started under the script's state directory that is still
// alive a short while after the script's tmux server is gone, and describes them.
func reapStragglers(marker string) []string {
	// A Regent whose tmux server was just killed leaves once its loops have seen their agents
	// go: on a loaded machine that takes seconds.
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := proc.Tagged(marker)
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			var desc []string
			for _, pid := range pids {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				desc = append(desc, fmt.Sprintf("%d %s", pid, strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " ")))
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			return desc
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// scriptCommand is what testscript calls for a custom command; neg says it was given !.
type scriptCommand = func(ts *testscript.TestScript, neg bool, args []string)

// plain is a command that has no negated meaning: `! NAME ...` fails the script instead of
// running it as if the ! were not there.
func plain(name string, run func(ts *testscript.TestScript, args []string)) scriptCommand {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg {
			ts.Fatalf("%s: ! is not supported", name)
		}
		run(ts, args)
	}
}

// scriptCommands are the scenarios' own commands. Each either refuses ! (plain) or says
// what ! means in its line here and in its doc comment.
func scriptCommands() map[string]scriptCommand {
	return map[string]scriptCommand{
		// [!] waitfor [-timeout SEC] [-gone] NAME REGEXP: poll the worker's screen (swarm peek)
		// until a line matches (or, with -gone, until none does); with !, for SEC it does not.
		"waitfor": cmdWaitFor,
		// [!] waitfile [-timeout SEC] PATH [REGEXP]: poll until the file exists (and matches);
		// with !, for SEC it does not.
		"waitfile": cmdWaitFile,
		// [!] waitstatus [-timeout SEC] NAME STATUS: poll swarm status until the worker's process
		// is in STATUS (running, stopped, orphaned); with !, for SEC it is not.
		"waitstatus": cmdWaitStatus,
		// [!] waitexec [-timeout SEC] REGEXP PROGRAM [ARGS...]: run PROGRAM until its output
		// matches; with !, for SEC it does not.
		"waitexec": cmdWaitExec,
		// [!] waitgone [-timeout SEC] PIDFILE: poll until that process group has no live member;
		// with !, it keeps one for SEC.
		"waitgone": cmdWaitGone,
		// [!] pgroupalive PIDFILE: the process group whose leader's pid is in the file has a live
		// member now (with !, none).
		"pgroupalive": cmdPgroupAlive,
		// mkfile PATH SIZE: write SIZE bytes of printable text in short lines.
		"mkfile": plain("mkfile", cmdMkfile),
		// code N CMD ARGS...: run CMD and require exit code N.
		"code": plain("code", cmdCode),
		// parallel N CMD ARGS...: run N copies at once ({i} is the copy number); all must succeed.
		"parallel": plain("parallel", cmdParallel),
		// countlines FILE N: FILE (e.g. stdout) has exactly N non-blank lines.
		"countlines": plain("countlines", cmdCountLines),
		// webhook [-hang|-redirect]: start a local HTTP server logging bodies to webhook.log; sets
		// WEBHOOK_URL (-hang: one that never answers, HANG_WEBHOOK_URL; -redirect: one that
		// answers 302, REDIRECT_WEBHOOK_URL, logging to redirect.log).
		"webhook": plain("webhook", cmdWebhook),
		// jsonl FILE: every line of FILE is a JSON object; prints them with sorted keys.
		"jsonl": plain("jsonl", cmdJSONL),
		// tmpfs DIR SIZE: mount a file system of SIZE (e.g. 256k) at DIR until the script ends.
		"tmpfs": plain("tmpfs", cmdTmpfs),
		// [!] pty [-within SEC] [-cols N] PROGRAM [ARGS...]: run PROGRAM on a terminal that never
		// answers; it must end within SEC (1), ask the terminal nothing and succeed (with !, fail).
		"pty": cmdPty,
		// [!] ptyexpect [-within SEC] [-cols N] REGEXP KEYS PROGRAM [ARGS...]: a program on a pty,
		// answered with KEYS once its screen matches (attach, then detach); with !, that fails.
		"ptyexpect": cmdPtyExpect,
		// regentcpu -max DURATION WINDOW: the Regent's CPU over WINDOW, from /proc, logged; it
		// must stay under DURATION (cpu_test.go).
		"regentcpu": plain("regentcpu", cmdRegentCPU),
		// tempuser VAR: create a local user until the script ends, its name in VAR (skips the
		// script where that cannot be done).
		"tempuser": plain("tempuser", cmdTempUser),
		// waitsquat: poll until the name squatsocket binds is bound.
		"waitsquat": plain("waitsquat", cmdWaitSquat),
		// sshhost start NAME [-netns] | cut NAME | restore NAME | kill NAME | env NAME CMD... |
		// ssh NAME [-timeout SEC] [-o OPTION]... CMD...: a remote host on this machine, reached
		// over real SSH (sshhost_test.go); with !, env and ssh require CMD to fail, the other
		// verbs refuse it.
		"sshhost": cmdSSHHost,
		// docblock [-after RE] [-before RE] FILE HEADING OUT: the ```sh block under a heading of
		// the project's docs, written to OUT, to run as users would type it (docblock_test.go).
		"docblock": plain("docblock", cmdDocBlock),
		// [!] maxrss MB PROGRAM [ARGS...]: PROGRAM must succeed (with !, fail) and peak within MB
		// of resident memory (maxrss_test.go).
		"maxrss": cmdMaxRSS,
		// [!] eventids FILE FIRST LAST: FILE (swarm events --format json) holds exactly the events
		// FIRST to LAST, in order (with !, it does not; eventlog_test.go).
		"eventids": cmdEventIDs,
		// proccpu -max DURATION WINDOW PIDFILE: the CPU of a process over WINDOW stays under
		// DURATION (cpu_test.go).
		"proccpu": plain("proccpu", cmdProcCPU),
		// [!] http [-bearer FILE] [-cookie FILE] [-H NAME:VALUE]... METHOD SERVED PATH [BODY]: a
		// request to the swarm serve whose first line is in the file SERVED, the token read
		// from FILE; prints "status N", the response's headers and its body (http_test.go).
		// With !, the request gets no answer at all (the server is gone).
		"http": cmdHTTP,
		// [!] browser start | login SERVED | open [-refused] PATH [SERVED] | size W H | text
		// [-within DUR] SELECTOR REGEXP | click SELECTOR | js EXPR | screenshot NAME | close: a
		// headless Chromium on swarm serve's page (browser_test.go); with !, text and js say
		// the opposite holds now, the other verbs refuse it.
		"browser": cmdBrowser,
	}
}
