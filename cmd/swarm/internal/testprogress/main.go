package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Stdin, os.Stdout, time.Now))
}

// event is one line of go test -json (test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// progress is what has been seen of the run so far.
type progress struct {
	out          io.Writer
	start        time.Time
	now          func() time.Time
	begun, ended int
	output       map[string]*strings.Builder // a running test's output, by package and name
	parents      map[string]bool             // tests that have subtests: no line of their own
	failed       bool                        // a package failed, or did not build
	passed       bool                        // a package passed
}

// run formats the events read from in onto out, and is the exit code.
func run(in io.Reader, out io.Writer, now func() time.Time) int {
	p := &progress{out: out, start: now(), now: now, output: map[string]*strings.Builder{}, parents: map[string]bool{}}
	scan := bufio.NewScanner(in)
	scan.Buffer(make([]byte, 1<<20), 64<<20)
	for scan.Scan() {
		var e event
		if err := json.Unmarshal(scan.Bytes(), &e); err != nil || e.Action == "" {
			// Not an event (go test's own complaint before any test ran): as it is.
			fmt.Fprintln(out, scan.Text())
			continue
		}
		p.take(e)
	}
	if err := scan.Err(); err != nil {
		fmt.Fprintf(out, "testprogress: %v\n", err)
		return 1
	}
	p.unended()
	if p.failed || !p.passed {
		return 1
	}
	return 0
}

// take is one event: a test begun, its output kept, its end told, the package's lines passed on.
func (p *progress) take(e event) {
	key := e.Package + " " + e.Test
	switch {
	case e.Action == "build-output":
		fmt.Fprint(p.out, e.Output)
	case e.Action == "build-fail":
		p.failed = true
	case e.Test == "":
		p.packageEvent(e)
	case e.Action == "run":
		p.begun++
		p.output[key] = &strings.Builder{}
		if i := strings.LastIndex(e.Test, "/"); i > 0 {
			p.parents[e.Package+" "+e.Test[:i]] = true
		}
	case e.Action == "output":
		if b := p.output[key]; b != nil {
			b.WriteString(e.Output)
		}
	case e.Action == "pass" || e.Action == "fail" || e.Action == "skip":
		p.testEnded(e, key)
	}
}

func (p *progress) packageEvent(e event) {
	switch e.Action {
	case "output":
		fmt.Fprint(p.out, e.Output)
	case "fail":
		p.failed = true
	case "pass":
		p.passed = true
	}
}

// testEnded tells a test's end: a line, and for a failure all it printed.
func (p *progress) testEnded(e event, key string) {
	kept := p.output[key]
	delete(p.output, key)
	if p.parents[key] {
		// Its subtests told their ends; a failure of its own output is the package's.
		if e.Action == "fail" && kept != nil {
			fmt.Fprint(p.out, kept.String())
		}
		return
	}
	p.ended++
	line := fmt.Sprintf("%5d/%-4d %7s  %s  %s (%.1fs)", p.ended, p.begun-len(p.parents), p.now().Sub(p.start).Round(time.Second), strings.ToUpper(e.Action), e.Test, e.Elapsed)
	text := ""
	if kept != nil {
		text = kept.String()
	}
	switch e.Action {
	case "skip":
		if why := lastLine(text); why != "" {
			line += ": " + why
		}
	case "fail":
		line += "\n" + text
	}
	fmt.Fprintln(p.out, strings.TrimRight(line, "\n"))
}

// unended tells the tests the run ended without an end of their own (a timeout's panic, a
// test binary that died), with what they printed: that is where the cause is.
func (p *progress) unended() {
	keys := make([]string, 0, len(p.output))
	for key := range p.output {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if text := p.output[key].String(); text != "" || !p.parents[key] {
			_, name, _ := strings.Cut(key, " ")
			fmt.Fprintf(p.out, "NOT ENDED  %s\n%s", name, text)
			p.failed = true
		}
	}
}

// lastLine is the last line of a skipped test's output that is not testing's own "--- SKIP".
func lastLine(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "--- ") && !strings.HasPrefix(l, "=== ") {
			return l
		}
	}
	return ""
}
