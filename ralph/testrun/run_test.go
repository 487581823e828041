package testrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func run(t *testing.T, ctx context.Context, s Spec) Result {
	t.Helper()
	if s.Dir == "" {
		s.Dir = t.TempDir()
	}
	return Run(ctx, s)
}

func TestOutcomes(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		command string
		want    Outcome
		err     string
	}{
		{"echo ok", Passed, ""},
		{"echo red; exit 3", Failed, "tests failed (exit 3)"},
		{"kill -SEGV $$", Failed, "tests failed (ended by signal: segmentation fault)"},
		{"no-such-test-runner-xyz", CannotRun, "test command cannot run: `no-such-test-runner-xyz`: "},
		{"./not-executable", CannotRun, "(exit 126)"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "not-executable"), []byte("exit 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		res := run(t, ctx, Spec{Command: c.command, Dir: dir})
		if res.Outcome != c.want {
			t.Errorf("%q: outcome %v, want %v (%+v)", c.command, res.Outcome, c.want, res)
		}
		if err := res.Err(); (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: err %v, want %q", c.command, err, c.err)
		}
		if c.want == CannotRun && !errors.Is(res.Err(), ErrCannotRun) {
			t.Errorf("%q: %v is not ErrCannotRun", c.command, res.Err())
		}
	}
}

func TestADirectoryThatIsNotThereCannotRun(t *testing.T) {
	res := Run(context.Background(), Spec{Command: "true", Dir: filepath.Join(t.TempDir(), "gone")})
	if res.Outcome != CannotRun || !strings.Contains(res.Detail, "`true`: ") {
		t.Fatalf("%+v", res)
	}
}

func TestEnvIsAddedAndOutputKept(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out.txt")
	res := run(t, context.Background(), Spec{Command: `echo "tag=$SWARM_TAG"; echo err >&2`, Env: []string{"SWARM_TAG=x"}, OutputFile: file})
	if res.Outcome != Passed || res.Output != "tag=x\nerr\n" || res.Size != 10 || res.Cut {
		t.Fatalf("%+v", res)
	}
	if data, _ := os.ReadFile(file); string(data) != res.Output {
		t.Fatalf("file holds %q", data)
	}
}

// pgidFrom reads the process group a step noted in file, waiting for it.
func pgidFrom(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(file); err == nil && strings.HasSuffix(string(data), "\n") {
			pgid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			return pgid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("nothing noted in %s", file)
	return 0
}

func wantGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			t.Fatalf("process group %d still has processes", pgid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// longStep notes its process group, starts a child and would run for half a minute.
func longStep(pgFile string) string { return "echo $$ > " + pgFile + "; sleep 30 & sleep 30" }

func TestTimeoutEndsTheWholeGroup(t *testing.T) {
	pgFile := filepath.Join(t.TempDir(), "pg")
	start := time.Now()
	res := run(t, context.Background(), Spec{Command: longStep(pgFile), Timeout: 300 * time.Millisecond})
	if res.Outcome != TimedOut || res.Err().Error() != "tests timed out after 300ms" {
		t.Fatalf("%+v: %v", res, res.Err())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v", took)
	}
	wantGroupGone(t, pgidFrom(t, pgFile))
}

func TestCancelEndsTheWholeGroupAtOnce(t *testing.T) {
	pgFile := filepath.Join(t.TempDir(), "pg")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		pgidFrom(t, pgFile)
		cancel()
	}()
	var tracked, untracked int
	res := run(t, ctx, Spec{Command: longStep(pgFile), Started: func(pgid int) func() {
		tracked = pgid
		return func() { untracked = pgid }
	}})
	if res.Outcome != CutShort || !errors.Is(res.Err(), ErrCutShort) {
		t.Fatalf("%+v", res)
	}
	pgid := pgidFrom(t, pgFile)
	if tracked != pgid || untracked != pgid {
		t.Errorf("Started told %d, done %d; the group is %d", tracked, untracked, pgid)
	}
	wantGroupGone(t, pgid)
	// A context ended before the run starts nothing.
	marker := filepath.Join(t.TempDir(), "ran")
	if res := run(t, ctx, Spec{Command: "touch " + marker}); res.Outcome != CutShort {
		t.Fatalf("after the end: %+v", res)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the command ran after the end (%v)", err)
	}
}

// What a passing command leaves running in its group is ended with it, and a process that
// left the group holding the output does not hold the run up.
func TestWhatIsLeftRunningEndsWithTheRun(t *testing.T) {
	pgFile := filepath.Join(t.TempDir(), "pg")
	start := time.Now()
	res := run(t, context.Background(), Spec{Command: "echo $$ > " + pgFile + "; sleep 30 & setsid sleep 3 & echo done"})
	if res.Outcome != Passed || !strings.Contains(res.Output, "done") {
		t.Fatalf("%+v", res)
	}
	if took := time.Since(start); took > killGrace+2*time.Second {
		t.Errorf("took %v", took)
	}
	wantGroupGone(t, pgidFrom(t, pgFile))
}
