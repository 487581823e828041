package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdDocBlock writes a shell block of the project's documentation to a file, so a scenario
// runs the commands a guide or the README tells users to type exactly as written there.
//
//	docblock [-after REGEXP] [-before REGEXP] FILE HEADING OUT
//
// FILE is relative to the repository's root; the block is the first ```sh fence after the
// Markdown heading whose text is HEADING. -after keeps the lines after the first one that
// matches, -before the lines before it: one block in parts, with waiting in between.
func cmdDocBlock(ts *testscript.TestScript, args []string) {
	var after, before *regexp.Regexp
	for len(args) > 1 && (args[0] == "-after" || args[0] == "-before") {
		re, err := regexp.Compile(args[1])
		if err != nil {
			ts.Fatalf("docblock %s: %v", args[0], err)
		}
		if args[0] == "-after" {
			after = re
		} else {
			before = re
		}
		args = args[2:]
	}
	if len(args) != 3 {
		ts.Fatalf("usage: docblock [-after REGEXP] [-before REGEXP] FILE HEADING OUT")
	}
	lines, err := shellBlock(filepath.Join("..", "..", args[0]), args[1])
	if err != nil {
		ts.Fatalf("docblock: %v", err)
	}
	lines = cutBlock(ts, lines, after, before)
	if err := os.WriteFile(ts.MkAbs(args[2]), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		ts.Fatalf("docblock: %v", err)
	}
}

// shellBlock is the first ```sh block after the heading of file whose text is heading.
func shellBlock(file, heading string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	found, in := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !found:
			found = strings.HasPrefix(line, "#") && strings.TrimSpace(strings.TrimLeft(line, "#")) == heading
		case !in && line == "```sh":
			in = true
		case in && line == "```":
			return lines, nil
		case in:
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%s has no heading %q", file, heading)
	}
	return nil, fmt.Errorf("%s has no complete ```sh block after %q", file, heading)
}

// cutBlock keeps the lines after the first that matches after and before the first that
// matches before; a pattern that matches no line fails the script.
func cutBlock(ts *testscript.TestScript, lines []string, after, before *regexp.Regexp) []string {
	if after != nil {
		i := indexMatch(lines, after)
		if i < 0 {
			ts.Fatalf("docblock: no line matches %q in:\n%s", after, strings.Join(lines, "\n"))
		}
		lines = lines[i+1:]
	}
	if before != nil {
		i := indexMatch(lines, before)
		if i < 0 {
			ts.Fatalf("docblock: no line matches %q in:\n%s", before, strings.Join(lines, "\n"))
		}
		lines = lines[:i]
	}
	return lines
}

func indexMatch(lines []string, re *regexp.Regexp) int {
	for i, l := range lines {
		if re.MatchString(l) {
			return i
		}
	}
	return -1
}
