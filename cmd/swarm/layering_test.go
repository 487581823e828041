package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
// it, and the Regent, swarm/regent, which stands on the worker lifecycle and never on the
// commands); the entry point. A lower layer that
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
	{rule: "the worker lifecycle stands apart from the commands",
		pkgs: []string{module + "/swarm/worker/..."},
		deny: []string{module + "/...", "github.com/urfave/cli/v2/..."},
		allow: []string{module + "/state/...", module + "/tmux/...", module + "/ralph/...",
			module + "/templates/...", module + "/swarm/worker/..."}, deps: true},
	{rule: "the merge queue stands on the worker lifecycle, never on the commands or the Regent",
		pkgs: []string{module + "/swarm/land/..."},
		deny: []string{module + "/...", "github.com/urfave/cli/v2/..."},
		allow: []string{module + "/state/...", module + "/tmux/...", module + "/ralph/...",
			module + "/templates/...", module + "/swarm/worker/...", module + "/swarm/land/..."}, deps: true},
	{rule: "the report stands on the records and their packages, never on the commands or the Regent",
		pkgs: []string{module + "/swarm/report/..."},
		deny: []string{module + "/...", "github.com/urfave/cli/v2/..."},
		allow: []string{module + "/state/...", module + "/tmux/...", module + "/ralph/...", module + "/templates/...",
			module + "/swarm/worker/...", module + "/swarm/land/...", module + "/swarm/remote/...", module + "/swarm/report/..."}, deps: true},
	{rule: "other machines are reached below the commands, never through the worker lifecycle or the Regent",
		pkgs:  []string{module + "/swarm/remote/..."},
		deny:  []string{module + "/...", "github.com/urfave/cli/v2/..."},
		allow: []string{module + "/state/...", module + "/ralph/git/...", module + "/ralph/words", module + "/swarm/remote/..."}, deps: true},
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

// execCall is a call of exec.Command or exec.CommandContext whose command is a string known
// in its own file: a literal, or a constant declared there as one.
type execCall struct {
	pos    token.Position
	fn     string
	binary string
}

// execCallsIn parses the non-test .go files of dir, whatever their build tags.
func execCallsIn(t *testing.T, dir string) []execCall {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var calls []execCall
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		found, err := execCalls(filepath.Join(dir, name), src)
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, found...)
	}
	return calls
}

// execCalls finds the exec calls of one file.
func execCalls(filename string, src []byte) ([]execCall, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	pkgName := ""
	for _, imp := range f.Imports {
		if imp.Path.Value == `"os/exec"` {
			pkgName = "exec"
			if imp.Name != nil {
				pkgName = imp.Name.Name
			}
		}
	}
	if pkgName == "" || pkgName == "_" {
		return nil, nil
	}
	consts := stringConsts(f)
	var calls []execCall
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != pkgName {
			return true
		}
		arg := map[string]int{"Command": 0, "CommandContext": 1}
		i, ok := arg[sel.Sel.Name]
		if !ok || len(call.Args) <= i {
			return true
		}
		if s, ok := stringValue(call.Args[i], consts); ok {
			calls = append(calls, execCall{fset.Position(call.Pos()), sel.Sel.Name, s})
		}
		return true
	})
	return calls, nil
}

// stringConsts maps the constants of a file declared as string literals to their values. A
// name declared more than once (in different scopes) is left out: which one a use means is
// not known without type checking.
func stringConsts(f *ast.File) map[string]string {
	consts := map[string]string{}
	seen := map[string]int{}
	ast.Inspect(f, func(n ast.Node) bool {
		d, ok := n.(*ast.GenDecl)
		if !ok || d.Tok != token.CONST {
			return true
		}
		for _, spec := range d.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				seen[name.Name]++
				if i < len(vs.Values) {
					if s, ok := stringValue(vs.Values[i], nil); ok {
						consts[name.Name] = s
					}
				}
			}
		}
		return true
	})
	for name, n := range seen {
		if n > 1 {
			delete(consts, name)
		}
	}
	return consts
}

// stringValue is e's value if e is a string literal or the name of one of consts.
func stringValue(e ast.Expr, consts map[string]string) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		}
	case *ast.Ident:
		s, ok := consts[e.Name]
		return s, ok
	}
	return "", false
}

// The scanner itself: what it must find, and what it must not take for a run of a binary.
func TestExecCalls(t *testing.T) {
	src := `package p

import (
	"context"
	x "os/exec"
)

const gitBin = "git"

func f(ctx context.Context, name string) {
	const tmuxBin = "tmux"
	_ = x.Command("git", "status")
	_ = x.CommandContext(ctx, tmuxBin, "ls")
	_ = x.Command(gitBin)
	_ = x.Command(` + "`tmux`" + `, "-V")
	_ = x.Command(name, "git")
	_ = x.CommandContext(ctx, "sh", "-c", "git status")
	_ = exec.Command("git")
}
`
	calls, err := execCalls("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range calls {
		got = append(got, strconv.Itoa(c.pos.Line)+" "+c.fn+" "+c.binary)
	}
	want := []string{"12 Command git", "13 CommandContext tmux", "14 Command git", "15 Command tmux", "17 CommandContext sh"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}
