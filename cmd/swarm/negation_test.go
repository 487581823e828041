package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// negated are the commands that give ! a meaning of their own (their doc comments say which);
// every other command must refuse it.
var negated = []string{
	"waitfor", "waitfile", "waitstatus", "waitexec", "waitgone", "pgroupalive",
	"pty", "ptyexpect", "sshhost", "maxrss", "eventids", "http", "browser",
}

// TestScriptCommandsNegation holds every scenario command to ! : one that has no meaning for
// it fails the script saying so, none runs as if the ! were not there.
func TestScriptCommandsNegation(t *testing.T) {
	cmds := scriptCommands()
	for _, name := range negated {
		if cmds[name] == nil {
			t.Errorf("negated names %s, which is no command", name)
		}
	}
	var scripts []string
	for name := range cmds {
		scripts = append(scripts, "! "+name)
	}
	slices.Sort(scripts)
	for _, script := range scripts {
		name := strings.TrimPrefix(script, "! ")
		failed, log := runScript(t, script)
		refused := strings.Contains(log, name+": ! is not supported")
		switch {
		case !failed:
			t.Errorf("%q passed", script)
		case slices.Contains(negated, name) && refused:
			t.Errorf("%q refused !, yet negated says it gives it a meaning", script)
		case !slices.Contains(negated, name) && !refused:
			t.Errorf("%q did not refuse !:\n%s", script, log)
		}
	}
}

// TestNegatedWaits checks what a negated wait means: the condition does not hold for the
// whole time given, which it must give.
func TestNegatedWaits(t *testing.T) {
	group := fmt.Sprintf("exec sh -c 'echo %d > group.pid'\n", syscall.Getpgrp())
	for _, c := range []struct {
		script string
		fails  string // what the failure says; "" when the script passes
	}{
		{"! waitfile -timeout 0.2 absent", ""},
		{"! waitfile absent", "waitfile: ! needs -timeout SEC"},
		{"exec sh -c 'echo x > present'\n! waitfile -timeout 5 present", "present exists after"},
		{"exec sh -c 'echo x > present'\n! waitfile -timeout 0.2 present '^y'", ""},
		{"exec sh -c 'echo y > present'\n! waitfile -timeout 5 present '^y'", "present matches"},
		{"waitfile -timeout 0.2 absent", "timed out after 200ms"},
		{"! waitexec -timeout 0.3 nomatch echo hi", ""},
		{"! waitexec -timeout 5 hi echo hi", "matches \"hi\" after"},
		{"! waitexec -timeout 0.3 x no-such-program-here", "waitexec: exec: \"no-such-program-here\""},
		{group + "! waitgone -timeout 0.2 group.pid", ""},
		{group + "waitgone -timeout 0.2 group.pid", "timed out after 200ms"},
		{group + "pgroupalive group.pid", ""},
		{group + "! pgroupalive group.pid", "alive=true"},
		{"! waitfor -timeout 5 nosuch x", "waitfor: cannot read nosuch's screen"},
		{"! waitstatus -timeout 5 nosuch running", "waitstatus: cannot read nosuch's status"},
	} {
		failed, log := runScript(t, c.script)
		switch {
		case c.fails == "" && failed:
			t.Errorf("%q failed:\n%s", c.script, log)
		case c.fails != "" && !failed:
			t.Errorf("%q passed", c.script)
		case c.fails != "" && !strings.Contains(log, c.fails):
			t.Errorf("%q failed without saying %q:\n%s", c.script, c.fails, log)
		}
	}
}

// runScript runs one scenario of the given lines with the scenarios' commands and setup, and
// says whether it failed and what it logged.
func runScript(t *testing.T, script string) (failed bool, log string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "s.txtar")
	if err := os.WriteFile(file, []byte(script+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &recordingT{}
	rec.Run("", func(testscript.T) {
		testscript.RunT(rec, testscript.Params{
			Files:               []string{file},
			WorkdirRoot:         dir,
			RequireExplicitExec: true,
			Setup:               setupScript,
			Cmds:                scriptCommands(),
			Condition:           scriptCondition,
		})
	})
	return rec.failed, rec.log.String()
}

// recordingT runs a scenario as testing.T would, keeping its failure and log to itself.
type recordingT struct {
	mu     sync.Mutex
	log    strings.Builder
	failed bool
}

func (r *recordingT) Skip(args ...any) { r.Log(args...); runtime.Goexit() }
func (r *recordingT) Fatal(args ...any) {
	r.Log(args...)
	r.FailNow()
}
func (r *recordingT) Parallel() {}
func (r *recordingT) Log(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintln(&r.log, args...)
}
func (r *recordingT) FailNow() {
	r.mu.Lock()
	r.failed = true
	r.mu.Unlock()
	runtime.Goexit()
}
func (r *recordingT) Verbose() bool { return false }

// Run runs the scenario on a goroutine of its own, which FailNow ends.
func (r *recordingT) Run(_ string, f func(testscript.T)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
}
