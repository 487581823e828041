package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// machine is a fake filesystem: paths that exist, those ending in / directories.
func machine(paths ...string) func(string) (bool, bool) {
	return func(p string) (bool, bool) {
		for _, q := range paths {
			if strings.TrimSuffix(q, "/") == p {
				return true, strings.HasSuffix(q, "/")
			}
		}
		return false, false
	}
}

func baseFacts() Facts {
	return Facts{
		Home: "/home/u", WorkDir: "/home/u/src/app-worktrees/w1", Repo: "/home/u/src/app",
		StateDir: "/home/u/.swarm", Box: "/home/u/.swarm/ralph/w1/box", TmuxDir: "/tmp/tmux-1000",
		Argv0: "/home/u/.local/bin/claude", Real: "/home/u/.local/share/claude/versions/2.1/claude",
		Path: []string{"/home/u/.local/bin", "/home/u/bin", "/usr/bin"}, Getenv: func(string) string { return "" },
		Stat: machine("/home/u/", "/home/u/.ssh/", "/home/u/.claude/", "/home/u/.claude.json", "/home/u/.codex/",
			"/home/u/.config/", "/home/u/.config/gh/", "/home/u/.local/", "/home/u/.gitconfig", "/home/u/.netrc",
			"/home/u/src/", "/home/u/bin/", "/home/u/.swarm/", "/home/u/src/app/", "/home/u/src/app-worktrees/w1/",
			"/home/u/.swarm/ralph/w1/box/", "/tmp/tmux-1000/"),
		HomeEntries: []string{".ssh", ".claude", ".claude.json", ".codex", ".config", ".local", ".gitconfig", ".netrc", "src", "bin", ".swarm"},
		Net:         Net{Kind: NetOpen}, FirstFD: 3,
	}
}

// mount is the position of a mount op with its operands in args, -1 when absent.
func mount(args []string, op ...string) int {
	for i := 0; i+len(op) <= len(args); i++ {
		if slices.Equal(args[i:i+len(op)], op) {
			return i
		}
	}
	return -1
}

func TestPlanHidesSecretsAndOtherAgents(t *testing.T) {
	p := Build(baseFacts())
	for _, hidden := range []string{"/home/u/.ssh", "/home/u/.netrc", "/home/u/.codex", "/home/u/.swarm", "/home/u/src", "/home/u/.claude.json"} {
		if mount(p.Args, "--ro-bind", hidden, hidden) >= 0 || mount(p.Args, "--bind", hidden, hidden) >= 0 {
			t.Errorf("%s is bound into the sandbox: %q", hidden, p.Args)
		}
	}
	home := mount(p.Args, "--tmpfs", "/home/u")
	config := mount(p.Args, "--ro-bind", "/home/u/.config", "/home/u/.config")
	gh := mount(p.Args, "--tmpfs", "/home/u/.config/gh")
	if home < 0 || config < home || gh < config {
		t.Errorf("want a private home, then .config back read-only, then .config/gh hidden: %q", p.Args)
	}
}

func TestPlanGivesTheAgentItsOwnFiles(t *testing.T) {
	p := Build(baseFacts())
	if mount(p.Args, "--bind", "/home/u/.claude", "/home/u/.claude") < 0 {
		t.Errorf("~/.claude is not read-write: %q", p.Args)
	}
	if i := mount(p.Args, "--file", "3", "/home/u/.claude.json"); i < 0 || len(p.Copies) != 1 || p.Copies[0] != (Copy{Src: "/home/u/.claude.json", FD: 3}) {
		t.Errorf("~/.claude.json is not a copy on fd 3: %q %v", p.Args, p.Copies)
	}
	if mount(p.Args, "--ro-bind", "/home/u/.gitconfig", "/home/u/.gitconfig") < 0 {
		t.Errorf("a dot-file is not back read-only: %q", p.Args)
	}
	if mount(p.Args, "--ro-bind", "/home/u/bin", "/home/u/bin") < 0 {
		t.Errorf("a PATH entry in the home directory is hidden: %q", p.Args)
	}
}

func TestPlanWritableLast(t *testing.T) {
	p := Build(baseFacts())
	state := mount(p.Args, "--tmpfs", "/home/u/.swarm")
	box := mount(p.Args, "--bind", "/home/u/.swarm/ralph/w1/box", "/home/u/.swarm/ralph/w1/box")
	repo := mount(p.Args, "--ro-bind", "/home/u/src/app", "/home/u/src/app")
	work := mount(p.Args, "--bind", "/home/u/src/app-worktrees/w1", "/home/u/src/app-worktrees/w1")
	if state < 0 || box < state || repo < 0 || work < repo || work < box {
		t.Errorf("want state hidden, then the box, the repository read-only and the worktree read-write: %q", p.Args)
	}
	if mount(p.Args, "--tmpfs", "/tmp/tmux-1000") < 0 {
		t.Errorf("the tmux sockets are not hidden: %q", p.Args)
	}
	if mount(p.Args, "--chdir", "/home/u/src/app-worktrees/w1") < 0 || mount(p.Args, "--cap-drop", "ALL") < 0 {
		t.Errorf("want the worktree as the directory and no capabilities: %q", p.Args)
	}
}

func TestPlanInPlaceKeepsGitReadOnly(t *testing.T) {
	f := baseFacts()
	f.WorkDir, f.InPlace, f.Repo = "/home/u/src/app", true, ""
	f.Stat = machine("/home/u/", "/home/u/src/app/", "/home/u/src/app/.git/")
	p := Build(f)
	work := mount(p.Args, "--bind", "/home/u/src/app", "/home/u/src/app")
	git := mount(p.Args, "--ro-bind", "/home/u/src/app/.git", "/home/u/src/app/.git")
	if work < 0 || git < work {
		t.Errorf("want the checkout read-write and its .git read-only over it: %q", p.Args)
	}
}

func TestPlanWorkDirAtHomeHidesSecretsAgain(t *testing.T) {
	f := baseFacts()
	f.WorkDir, f.InPlace = "/home/u", true
	p := Build(f)
	work := mount(p.Args, "--bind", "/home/u", "/home/u")
	ssh := mount(p.Args[work+1:], "--tmpfs", "/home/u/.ssh")
	state := mount(p.Args[work+1:], "--tmpfs", "/home/u/.swarm")
	box := mount(p.Args[work+1:], "--bind", "/home/u/.swarm/ralph/w1/box", "/home/u/.swarm/ralph/w1/box")
	if work < 0 || ssh < 0 || state < 0 || box < state {
		t.Errorf("a worker in the home directory must not see its secrets or swarm's state: %q", p.Args)
	}
}

func TestPlanNetwork(t *testing.T) {
	f := baseFacts()
	if p := Build(f); slices.Contains(p.Args, "--unshare-net") {
		t.Errorf("open network cut: %q", p.Args)
	}
	f.Net = Net{Kind: NetNone}
	if p := Build(f); !slices.Contains(p.Args, "--unshare-net") {
		t.Errorf("none keeps the network: %q", p.Args)
	}
	f.Net, f.ProxySocket = Net{Kind: NetAllow, Allow: []string{"api.anthropic.com:443"}}, "/run/user/1/p.sock"
	p := Build(f)
	if !slices.Contains(p.Args, "--unshare-net") || mount(p.Args, "--bind", "/run/user/1/p.sock", ProxySocketInside) < 0 ||
		mount(p.Args, "--setenv", "HTTPS_PROXY", "http://"+ProxyAddrInside) < 0 {
		t.Errorf("allow must cut the network and reach the proxy: %q", p.Args)
	}
}

func TestPlanEnvironment(t *testing.T) {
	p := Build(baseFacts())
	for _, op := range [][]string{{"--unsetenv", "TMUX"}, {"--setenv", "SWARM_DONE_FILE", "/home/u/.swarm/ralph/w1/box/DONE"}} {
		if mount(p.Args, op...) < 0 {
			t.Errorf("missing %q: %q", op, p.Args)
		}
	}
}

func TestPlanNodePackageUnderTmp(t *testing.T) {
	f := baseFacts()
	f.Argv0, f.Real = "/tmp/t/npm/bin/codex", "/tmp/t/npm/lib/node_modules/@openai/codex/bin/codex.js"
	f.Stat = machine("/home/u/", "/tmp/t/npm/bin/", "/tmp/t/npm/lib/")
	p := Build(f)
	if mount(p.Args, "--ro-bind", "/tmp/t/npm/lib", "/tmp/t/npm/lib") < 0 || mount(p.Args, "--ro-bind", "/tmp/t/npm/bin", "/tmp/t/npm/bin") < 0 {
		t.Errorf("an agent installed under /tmp must stay reachable: %q", p.Args)
	}
}

func TestCommandSaysUpFirst(t *testing.T) {
	got := Command(4, []string{"claude", "-p"})
	if got[0] != "/bin/sh" || !strings.Contains(got[2], "printf up >&4; exec 4>&-") || !slices.Equal(got[len(got)-2:], []string{"claude", "-p"}) {
		t.Errorf("Command = %q", got)
	}
}

func TestPlanGivesTheWorkerItsOwnCaches(t *testing.T) {
	f := baseFacts()
	f.Cache = "/home/u/.swarm/cache/w1"
	f.Stat = machine("/home/u/", "/home/u/.cache/", "/home/u/.cargo/", "/home/u/.npm/", "/home/u/.local/")
	f.HomeEntries = []string{".cache", ".cargo", ".npm", ".local"}
	p := Build(f)
	ro := mount(p.Args, "--ro-bind", "/home/u/.cache", "/home/u/.cache")
	own := mount(p.Args, "--bind", "/home/u/.swarm/cache/w1/cache", "/home/u/.cache")
	if ro < 0 || own < ro {
		t.Errorf("~/.cache is not the worker's own over the user's: %q", p.Args)
	}
	if mount(p.Args, "--bind", "/home/u/.swarm/cache/w1/go-pkg-mod", "/home/u/go/pkg/mod") < 0 {
		t.Errorf("Go's module cache (in the private home) is not the worker's own: %q", p.Args)
	}
	if strings.Contains(strings.Join(p.Args, " "), "/home/u/.cargo/registry") {
		t.Errorf("a cache inside a read-only dot-directory that lacks it would need a directory made there: %q", p.Args)
	}
	f.Cache = ""
	if p := Build(f); strings.Contains(strings.Join(p.Args, " "), "/cache/w1") {
		t.Errorf("no cache given, yet one bound: %q", p.Args)
	}
}
