package main

import (
	"bytes"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The module's layers, from the bottom: state; tmux; ralph/words (how durations and counts
// read, for every layer); ralph/screen and ralph/cost; the configuration files (ralph/config);
// the loop's domain and policy (ralph, with ralph/git and ralph/inbox), which runs no process
// and talks to no tmux and no network; the shared inbox (ralph/sharedinbox), agent mode's
// claims on a git remote, which reaches the network through ralph/git alone; the loop's driver
// (ralph/driver), which runs processes and tmux; the CLI (swarm and its helpers under swarm/,
// among them the worker lifecycle, swarm/worker, which stands on the loop and the layers under
// it; the Regent's client, swarm/regent, what commands find, start and ask the Regent with,
// which stands on the worker lifecycle; a loop's life from outside its driver, swarm/loop,
// which asks the Regent through that client; and the Regent's process, swarm/regent/daemon,
// on top of both and imported only by the command that starts it); the entry point. A lower layer that
// reaches up makes the loop depend on the CLI, so these rules are checked against the import
// graph rather than left to review.

const module = "github.com/swarm-dev/swarm"

// An importRule says which imports the packages matching pkgs (but not except) may not have:
// those matching deny, unless they match allow. With deps, imports of imports count too.
// A pattern is an import path, or one ending in "/..." for that path and everything under it.
type importRule struct {
	rule   string
	pkgs   []string
	except []string
	deny   []string
	allow  []string
	deps   bool
}

var importRules = []importRule{
	{rule: "the layers under the CLI do not use it or its helpers",
		pkgs: []string{module + "/ralph/...", module + "/state/...", module + "/tmux/...", module + "/templates/..."},
		deny: []string{module + "/swarm/..."}, deps: true},
	{rule: "state stands on no other package of the module",
		pkgs: []string{module + "/state/..."},
		deny: []string{module + "/..."}, allow: []string{module + "/state/..."}, deps: true},
	{rule: "the loop's domain and policy stand on no driver",
		pkgs: []string{module + "/ralph"},
		deny: []string{module + "/tmux/...", "os/exec", "net/http", module + "/ralph/driver/..."}},
	{rule: "the shared inbox stands on the loop's domain and ralph/git, never on the loop's driver, tmux or the CLI",
		pkgs: []string{module + "/ralph/sharedinbox/..."},
		deny: []string{module + "/ralph/driver/...", module + "/tmux/...", module + "/swarm/...", "net/http"}, deps: true},
	{rule: "the shared inbox runs git only through ralph/git",
		pkgs: []string{module + "/ralph/sharedinbox/..."},
		deny: []string{"os/exec"}},
	{rule: "the words said to people stand on no other package of the module",
		pkgs: []string{module + "/ralph/words"},
		deny: []string{module + "/..."}, allow: []string{module + "/ralph/words"}, deps: true},
	{rule: "reading and ending processes stands on no other package of the module",
		pkgs: []string{module + "/ralph/proc/..."},
		deny: []string{module + "/..."}, allow: []string{module + "/ralph/proc/..."}, deps: true},
	{rule: "the one runner of test commands stands on no other package of the module",
		pkgs: []string{module + "/ralph/testrun/..."},
		deny: []string{module + "/..."}, allow: []string{module + "/ralph/testrun/..."}, deps: true},
	{rule: "the sandbox's plan stands on state at most",
		pkgs: []string{module + "/ralph/sandbox/..."},
		deny: []string{module + "/..."}, allow: []string{module + "/state/...", module + "/ralph/sandbox/...", module + "/ralph/words"}, deps: true},
	{rule: "the egress proxy stands on no other package of the module",
		pkgs: []string{module + "/ralph/sandbox/egress/..."},
		deny: []string{module + "/..."}, allow: []string{module + "/ralph/words", module + "/ralph/sandbox/egress/..."}, deps: true},
	{rule: "tmux stands on no other package of the module",
		pkgs: []string{module + "/tmux/..."},
		deny: []string{module + "/..."}, allow: []string{module + "/tmux/..."}, deps: true},
	{rule: "reading screens stands on state at most",
		pkgs: []string{module + "/ralph/screen/..."},
		deny: []string{module + "/..."}, allow: []string{module + "/state/...", module + "/ralph/screen/..."}, deps: true},
	{rule: "counting cost stands on state at most",
		pkgs: []string{module + "/ralph/cost/..."},
		deny: []string{module + "/..."}, allow: []string{module + "/state/...", module + "/ralph/cost/..."}, deps: true},
	{rule: "configuration stands below the loop",
		pkgs: []string{module + "/ralph/config/..."},
		deny: []string{module + "/..."}, allow: []string{module + "/state/...", module + "/ralph/cost/...", module + "/ralph/words",
			module + "/ralph/config/..."}, deps: true},
	{rule: "configuration stands below the loop: of the libraries outside the standard one, only the TOML decoder",
		pkgs: []string{module + "/ralph/config/..."},
		deny: []string{"github.com/...", "golang.org/...", "charm.land/...", "gopkg.in/..."}, allow: []string{"github.com/BurntSushi/toml/...", module + "/..."}},
	{rule: "the Regent stands apart from the commands",
		pkgs: []string{module + "/swarm/regent/..."},
		deny: []string{module + "/swarm", module + "/swarm/dashboard/...", "github.com/urfave/cli/v2/..."}, deps: true},
	{rule: "the Regent's client asks the Regent and drives no loop: neither its daemon nor a loop's life nor the loop's driver",
		pkgs: []string{module + "/swarm/regent"},
		deny: []string{module + "/swarm/regent/daemon/...", module + "/swarm/loop/...", module + "/ralph/driver/..."}, deps: true},
	{rule: "the Regent's daemon is imported by nothing but the command that starts it",
		pkgs: []string{module + "/..."}, except: []string{module + "/swarm", module + "/swarm/regent/daemon/..."},
		deny: []string{module + "/swarm/regent/daemon/..."}},
	{rule: "a loop's life stands below the commands and the Regent's daemon, asking the Regent through its client",
		pkgs: []string{module + "/swarm/loop/..."},
		deny: []string{module + "/swarm", module + "/swarm/regent/daemon/...", module + "/swarm/dashboard/...", module + "/swarm/serve/...",
			"github.com/urfave/cli/v2/..."}, deps: true},
	{rule: "the worker lifecycle stands apart from the commands, the loops and the Regent",
		pkgs: []string{module + "/swarm/worker/..."},
		deny: []string{module + "/...", "github.com/urfave/cli/v2/..."},
		allow: []string{module + "/state/...", module + "/tmux/...", module + "/ralph/...",
			module + "/templates/...", module + "/swarm/heartbeat", module + "/swarm/worker/..."}, deps: true},
	{rule: "the machine of the unit tests stands below the worker lifecycle, whose own tests use it",
		pkgs: []string{module + "/swarm/internal/testmachine/..."},
		deny: []string{module + "/...", "github.com/urfave/cli/v2/..."},
		allow: []string{module + "/state/...", module + "/tmux/...", module + "/ralph/...", module + "/templates/...",
			module + "/swarm/heartbeat", module + "/swarm/worker/workertest/...", module + "/swarm/internal/testmachine/..."}, deps: true},
	{rule: "the merge queue stands on the worker lifecycle, never on the commands or the Regent",
		pkgs: []string{module + "/swarm/land/..."},
		deny: []string{module + "/...", "github.com/urfave/cli/v2/..."},
		allow: []string{module + "/state/...", module + "/tmux/...", module + "/ralph/...",
			module + "/templates/...", module + "/swarm/heartbeat", module + "/swarm/worker/...", module + "/swarm/land/..."}, deps: true},
	{rule: "the report stands on the records and their packages, never on the commands or the Regent",
		pkgs: []string{module + "/swarm/report/..."},
		deny: []string{module + "/...", "github.com/urfave/cli/v2/..."},
		allow: []string{module + "/state/...", module + "/tmux/...", module + "/ralph/...", module + "/templates/...",
			module + "/swarm/heartbeat", module + "/swarm/worker/...", module + "/swarm/land/...", module + "/swarm/remote/...",
			module + "/swarm/report/..."}, deps: true},
	{rule: "other machines are reached below the commands, never through the worker lifecycle or the Regent",
		pkgs:  []string{module + "/swarm/remote/..."},
		deny:  []string{module + "/...", "github.com/urfave/cli/v2/..."},
		allow: []string{module + "/state/...", module + "/ralph/git/...", module + "/ralph/words", module + "/swarm/remote/..."}, deps: true},
	{rule: "the server and its parts stand apart from the commands: the CLI hands them what they need",
		pkgs: []string{module + "/swarm/serve/..."},
		deny: []string{module + "/swarm", "github.com/urfave/cli/v2/..."}, deps: true},
	{rule: "the dashboard and the guides stand apart from the commands",
		pkgs: []string{module + "/swarm/dashboard/...", module + "/swarm/guide/..."},
		deny: []string{module + "/swarm"}, deps: true},
	{rule: "only the CLI uses the CLI library",
		pkgs: []string{module + "/..."}, except: []string{module + "/swarm", module + "/cmd/swarm"},
		deny: []string{"github.com/urfave/cli/v2/..."}},
}

// execRules: the one package that may start each binary.
var execRules = []struct{ binary, only string }{
	{"tmux", module + "/tmux"},
	{"git", module + "/ralph/git"},
	{"ssh", module + "/swarm/remote"},
}

func TestLayering(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	root := strings.TrimSpace(goList(t, ".", "-m", "-f", "{{.Dir}}"))
	if got := strings.TrimSpace(goList(t, root, "-m")); got != module {
		t.Fatalf("module is %q, the rules are written for %q", got, module)
	}
	graph := importGraph(goList(t, root, "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./..."))
	dirs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(goList(t, root, "-f", "{{.ImportPath}}\t{{.Dir}}", "./...")), "\n") {
		pkg, dir, _ := strings.Cut(line, "\t")
		dirs[pkg] = dir
	}
	pkgs := slices.Sorted(maps.Keys(dirs))
	for _, r := range importRules {
		checked := 0
		for _, pkg := range pkgs {
			if matchAny(r.pkgs, pkg) && !matchAny(r.except, pkg) {
				checked++
				for _, v := range r.violations(graph, pkg) {
					t.Errorf("%s: %s", r.rule, v)
				}
			}
		}
		if checked == 0 {
			t.Errorf("%s: no package matches %v; the rule checks nothing", r.rule, r.pkgs)
		}
	}
	for _, pkg := range pkgs {
		for _, c := range execCallsIn(t, dirs[pkg]) {
			for _, er := range execRules {
				if c.binary == er.binary && pkg != er.only {
					rel, _ := filepath.Rel(root, c.pos.Filename)
					t.Errorf("only %s runs %s: %s:%d (package %s) calls exec.%s(%q, ...)",
						er.only, er.binary, rel, c.pos.Line, pkg, c.fn, c.binary)
				}
			}
		}
	}
}

// goList runs `go list args...` in dir and returns its output.
func goList(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// importGraph reads lines of "PKG IMPORT..." into each package's direct imports.
func importGraph(out string) map[string][]string {
	g := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 {
			g[f[0]] = f[1:]
		}
	}
	return g
}

func match(pattern, path string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

func matchAny(patterns []string, path string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return match(p, path) })
}

func (r importRule) denied(path string) bool {
	return matchAny(r.deny, path) && !matchAny(r.allow, path)
}

// violations lists pkg's denied imports. Through imports of imports (deps), each is reported
// where the chain first crosses into a denied package, with the chain that leads there.
func (r importRule) violations(graph map[string][]string, pkg string) []string {
	if !r.deps {
		var out []string
		for _, imp := range graph[pkg] {
			if r.denied(imp) {
				out = append(out, pkg+" imports "+imp)
			}
		}
		return out
	}
	parent := map[string]string{pkg: ""}
	queue := []string{pkg}
	var out []string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, imp := range graph[p] {
			if _, seen := parent[imp]; seen {
				continue
			}
			parent[imp] = p
			queue = append(queue, imp)
			if r.denied(imp) && !r.denied(p) {
				out = append(out, describe(pkg, imp, parent))
			}
		}
	}
	return out
}

// describe names pkg and the denied imp, and the chain of imports between them if indirect.
func describe(pkg, imp string, parent map[string]string) string {
	if parent[imp] == pkg {
		return pkg + " imports " + imp
	}
	chain := []string{strings.TrimPrefix(imp, module+"/")}
	for p := parent[imp]; p != ""; p = parent[p] {
		chain = append(chain, strings.TrimPrefix(p, module+"/"))
	}
	slices.Reverse(chain)
	return pkg + " imports " + imp + " indirectly: " + strings.Join(chain, " -> ")
}
