package main

import (
	"strings"
	"testing"
	"time"
)

func events(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func format(t *testing.T, in string) (string, int) {
	t.Helper()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(time.Second); return clock }
	var out strings.Builder
	code := run(strings.NewReader(in), &out, now)
	return out.String(), code
}

func TestPassingRun(t *testing.T) {
	out, code := format(t, events(
		`{"Action":"run","Package":"p","Test":"TestScripts"}`,
		`{"Action":"run","Package":"p","Test":"TestScripts/a"}`,
		`{"Action":"run","Package":"p","Test":"TestScripts/b"}`,
		`{"Action":"output","Package":"p","Test":"TestScripts/a","Output":"a's long transcript\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestScripts/a","Elapsed":1.25}`,
		`{"Action":"output","Package":"p","Test":"TestScripts/b","Output":"    main_test.go:9: needs sshd\n"}`,
		`{"Action":"output","Package":"p","Test":"TestScripts/b","Output":"--- SKIP: TestScripts/b (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestScripts/b"}`,
		`{"Action":"pass","Package":"p","Test":"TestScripts","Elapsed":3}`,
		`{"Action":"output","Package":"p","Output":"ok  \tp\t3.0s\n"}`,
		`{"Action":"pass","Package":"p","Elapsed":3}`,
	))
	want := "    1/2         1s  PASS  TestScripts/a (1.2s)\n" +
		"    2/2         2s  SKIP  TestScripts/b (0.0s): main_test.go:9: needs sshd\n" +
		"ok  \tp\t3.0s\n"
	if out != want || code != 0 {
		t.Errorf("exit %d, out:\n%s\nwant:\n%s", code, out, want)
	}
}

func TestFailureShowsItsOutputAndFailsTheRun(t *testing.T) {
	out, code := format(t, events(
		`{"Action":"run","Package":"p","Test":"TestScripts"}`,
		`{"Action":"run","Package":"p","Test":"TestScripts/a"}`,
		`{"Action":"output","Package":"p","Test":"TestScripts/a","Output":"> exec swarm ls\n"}`,
		`{"Action":"output","Package":"p","Test":"TestScripts/a","Output":"FAIL: a.txtar:1: unexpected command failure\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestScripts/a","Elapsed":2}`,
		`{"Action":"fail","Package":"p","Test":"TestScripts","Elapsed":2}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t2.0s\n"}`,
		`{"Action":"fail","Package":"p","Elapsed":2}`,
	))
	if code != 1 || !strings.Contains(out, "FAIL  TestScripts/a (2.0s)\n> exec swarm ls\nFAIL: a.txtar:1: unexpected command failure\n") {
		t.Errorf("exit %d, out:\n%s", code, out)
	}
}

func TestRunsThatNeverPassFailTheRun(t *testing.T) {
	for name, in := range map[string]string{
		"build failure": events(`{"ImportPath":"p","Action":"build-output","Output":"p/x.go:1: syntax error\n"}`, `{"ImportPath":"p","Action":"build-fail"}`,
			`{"Action":"output","Package":"p","Output":"FAIL\tp [build failed]\n"}`, `{"Action":"fail","Package":"p"}`),
		"cut short": events(`{"Action":"run","Package":"p","Test":"TestA"}`, `{"Action":"output","Package":"p","Test":"TestA","Output":"panic: test timed out after 30m0s\n"}`),
		"nothing":   "",
		"not json":  "go: no Go files in /x\n",
	} {
		out, code := format(t, in)
		if code != 1 {
			t.Errorf("%s: exit %d, out:\n%s", name, code, out)
		}
		if name == "cut short" && !strings.Contains(out, "NOT ENDED  TestA\npanic: test timed out after 30m0s\n") {
			t.Errorf("a test cut short is not told with its output:\n%s", out)
		}
	}
}
