package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Which binaries the module's code runs: the layering test checks that only tmux/ runs tmux
// and only ralph/git runs git by reading every exec.Command call whose command is known.

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
