package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// A doc comment says what it documents by its first word, the declaration's name ("Spawn
// starts ...", "a Loop is ..."). A comment whose first word names another identifier of
// its package, or reads as an identifier at all (mixedCase, under_scores), was left behind
// by a rename or a move: it documents something that is not there. make lint runs this.

// leadingWord is a doc comment's first word, past an article.
var leadingWord = regexp.MustCompile(`^(?:(?:A|An|The|a|an|the)\s+)?([A-Za-z_][A-Za-z0-9_]*)`)

// testFunc is the name of a test, benchmark, fuzz test or example.
var testFunc = regexp.MustCompile(`^(Test|Benchmark|Fuzz|Example)([A-Z_]|$)`)

// identLike is a word no prose has: mixedCase, or with an underscore or a digit inside.
var identLike = regexp.MustCompile(`[a-z][A-Z]|.._|[a-zA-Z][0-9]`)

func TestDocCommentsNameTheirDeclaration(t *testing.T) {
	root := filepath.Join("..", "..")
	var stale []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			stale = append(stale, staleDocs(t, path)...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(stale)
	for _, s := range stale {
		t.Errorf("%s", s)
	}
}

// staleDocs are the doc comments of a directory's Go files whose first word names something
// else than what they document.
func staleDocs(t *testing.T, dir string) []string {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	var out []string
	for _, pkg := range pkgs {
		declared := map[string]bool{}
		var docs []namedDoc
		for _, f := range pkg.Files {
			docs = append(docs, fileDocs(f, declared)...)
		}
		for _, d := range docs {
			if w, bad := staleWord(d, declared); bad {
				out = append(out, fset.Position(d.pos).String()+": the doc comment of "+d.name+" begins with "+w)
			}
		}
	}
	return out
}

// namedDoc is a declaration's name and its doc comment; grouped for one in a parenthesized
// group, whose comments are often prose about what the line holds.
type namedDoc struct {
	name    string
	doc     *ast.CommentGroup
	pos     token.Pos
	grouped bool
}

// fileDocs are a file's documented declarations; every name it declares goes into declared.
func fileDocs(f *ast.File, declared map[string]bool) []namedDoc {
	var out []namedDoc
	grouped := false
	add := func(name *ast.Ident, doc *ast.CommentGroup) {
		declared[name.Name] = true
		if doc != nil {
			out = append(out, namedDoc{name: name.Name, doc: doc, pos: doc.Pos(), grouped: grouped})
		}
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && testFunc.MatchString(d.Name.Name) {
				// A test's comment tells what it shows, in prose.
				declared[d.Name.Name] = true
				continue
			}
			add(d.Name, d.Doc)
		case *ast.GenDecl:
			grouped = d.Lparen.IsValid()
			for _, spec := range d.Specs {
				doc := d.Doc
				if len(d.Specs) > 1 || d.Lparen.IsValid() {
					doc = nil // a group's comment speaks of the group
				}
				switch s := spec.(type) {
				case *ast.TypeSpec:
					add(s.Name, firstDoc(s.Doc, doc))
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if len(s.Names) == 1 {
							add(n, firstDoc(s.Doc, doc))
						} else {
							declared[n.Name] = true
						}
					}
				}
			}
		}
	}
	return out
}

func firstDoc(docs ...*ast.CommentGroup) *ast.CommentGroup {
	for _, d := range docs {
		if d != nil {
			return d
		}
	}
	return nil
}

// staleWord is the doc comment's first word when it names something else: another
// identifier of the package, or a word that reads as an identifier.
func staleWord(d namedDoc, declared map[string]bool) (string, bool) {
	text := d.doc.Text()
	if strings.HasPrefix(text, "go:") || strings.HasPrefix(text, "Deprecated") {
		return "", false
	}
	m := leadingWord.FindStringSubmatch(text)
	if m == nil || m[1] == d.name {
		return "", false
	}
	w := m[1]
	// A word followed by a dot or a parenthesis speaks of something else on purpose
	// ("os.Getpid ...", "Exec(...) runs"): only a bare first word is taken for a name.
	if rest := text[len(m[0]):]; strings.HasPrefix(rest, ".") && len(rest) > 1 && rest[1] != ' ' && rest[1] != '\n' {
		return "", false
	}
	if declared[w] && !d.grouped || identLike.MatchString(w) {
		return w, true
	}
	return "", false
}

// lowerMixed is a word that can only be a Go name: it starts lowercase and has an uppercase
// letter inside ("helpLines"), and no package but this module's own unexported ones has it.
var lowerMixed = regexp.MustCompile("(?:^|[^A-Za-z0-9_.`])([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)")

// notNames are the words of that shape that are not Go names.
var notNames = map[string]bool{"macOS": true, "iOS": true, "iPhone": true, "eBPF": true, "gVisor": true, "iTerm": true,
	"kB": true, "mixedCase": true}

// wordsIn are the word-like runs of a string literal: a field of a wire format ("usageMetadata")
// or a page's ("innerText") that a comment may name is in one.
var wordsIn = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

func TestCommentsNameWhatExists(t *testing.T) {
	fset := token.NewFileSet()
	names := map[string]bool{}
	var files []*ast.File
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && (strings.HasPrefix(d.Name(), ".") && d.Name() != "." && d.Name() != ".." || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return err
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.Ident:
				names[x.Name] = true
			case *ast.BasicLit:
				if x.Kind == token.STRING {
					for _, w := range wordsIn.FindAllString(x.Value, -1) {
						names[w] = true
					}
				}
			}
			return true
		})
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, line := range strings.Split(cg.Text(), "\n") {
				if strings.HasPrefix(line, "\t") {
					continue // a doc comment's code block: its words are an example's
				}
				for _, m := range lowerMixed.FindAllStringSubmatch(line, -1) {
					if w := m[1]; !names[w] && !notNames[w] {
						stale = append(stale, fset.Position(cg.Pos()).String()+": names "+w+", which is nowhere in the code")
					}
				}
			}
		}
	}
	sort.Strings(stale)
	for _, s := range stale {
		t.Errorf("%s", s)
	}
}
