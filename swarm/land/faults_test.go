package land

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// landWith lands branch with o, and returns the record and the error.
func (f *fixture) landWith(branch string, o Options) (*Record, error) {
	f.t.Helper()
	tip := f.git("rev-parse", branch)
	rec, _ := LoadRecord(f.dir, "w-"+branch)
	return Land(f.dir, Candidate{Worker: "w-" + branch, Branch: branch, Repo: f.repo, Target: "main", Tip: tip, Record: rec}, o)
}

// hook installs an executable hook in the fixture's repository.
func (f *fixture) hook(name, script string) {
	f.t.Helper()
	dir := filepath.Join(f.repo, ".git", "hooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		f.t.Fatal(err)
	}
}

// wantNotLanded fails unless r is queued (nothing sent back) for a reason saying want, and
// main stayed at before.
func (f *fixture) wantNotLanded(r *Record, before, want string) {
	f.t.Helper()
	if r.State != Queued || r.SentBack() || !strings.Contains(r.Reason, want) {
		f.t.Errorf("record %s %q, want queued saying %q", r.State, r.Reason, want)
	}
	if now := f.git("rev-parse", "main"); now != before {
		f.t.Errorf("main moved to %s", now)
	}
	if saved, _ := LoadRecord(f.dir, r.Worker); saved == nil || saved.State != r.State || saved.Reason != r.Reason {
		f.t.Errorf("saved %+v, want what was returned", saved)
	}
}

func TestATestCommandThatCannotRunSendsNothingBack(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	before := f.git("rev-parse", "main")
	r := f.land("one", "mkae test")
	f.wantNotLanded(r, before, "test command cannot run: `mkae test`: ")
	if !strings.Contains(r.Reason, "(exit 127)") {
		t.Errorf("reason %q does not say how it ended", r.Reason)
	}
}

func TestATestRunOutOfTimeBreaksTheTests(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	r, err := f.landWith("one", Options{TestCommand: "echo started; sleep 30", TestTimeout: 300 * time.Millisecond})
	if err != nil || r.State != BreaksTests || r.Reason != "tests timed out after 300ms on the merge" {
		t.Fatalf("record %s %q, %v", r.State, r.Reason, err)
	}
	if out, _ := os.ReadFile(r.OutputFile); string(out) != "started\n" {
		t.Errorf("output %q", out)
	}
}

func TestABranchMovedOrDeletedWhileTestedIsNotLanded(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	f.commit("two", "c.txt", "c\n")
	before := f.git("rev-parse", "main")
	tip := f.git("rev-parse", "one")
	r := f.land("one", "git update-ref refs/heads/one HEAD")
	f.wantNotLanded(r, before, "w-one's branch moved while it was tested ("+tip[:7]+" → ")
	r = f.land("two", "git update-ref -d refs/heads/two")
	f.wantNotLanded(r, before, "w-two's branch two was deleted while it was tested; not landed")
}

func TestAMergeAHookRefusesIsRecordedWithItsLastLine(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	before := f.git("rev-parse", "main")
	f.hook("pre-merge-commit", "echo checking; echo 'lint: 3 problems found' >&2; exit 1")
	r := f.land("one", "exit 0")
	f.wantNotLanded(r, before, "not merged onto main: the merge was refused: lint: 3 problems found")
}

func TestAHookThatNeverEndsIsEndedAtTheTimeLimit(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	before := f.git("rev-parse", "main")
	f.hook("commit-msg", "sleep 60")
	start := time.Now()
	r, err := f.landWith("one", Options{TestTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v", took)
	}
	f.wantNotLanded(r, before, "git merge did not end within 500ms (the repository's hooks with it) and was ended")
}

func TestProgressTellsEachStep(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	var steps []string
	r, err := f.landWith("one", Options{TestCommand: "true", Progress: func(e Event) {
		if e.Worker != "w-one" || e.Branch != "one" || e.Target != "main" || e.Time.IsZero() {
			t.Errorf("event %+v", e)
		}
		steps = append(steps, e.Step)
	}})
	if err != nil || r.State != Landed {
		t.Fatalf("%+v %v", r, err)
	}
	if got := strings.Join(steps, " "); got != "merging testing tested moving" {
		t.Errorf("steps %q", got)
	}
}

// A record a run left in the middle of the move is settled from the target: the target that
// holds the tested merge landed it; one still where the move started did not.
func TestSettleTellsFromTheTarget(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	old := f.git("rev-parse", "main")
	landed := f.land("one", "")
	left := &Record{Worker: "w-one", State: Testing, Branch: "one", Target: "main", Repo: f.repo,
		TestedCommit: landed.Commit, MoveFrom: old}
	if s := Settle(f.dir, left); s.State != Landed || s.Commit != landed.Commit || s.MoveFrom != "" {
		t.Errorf("moved: %+v", s)
	}
	f.git("reset", "-q", "--hard", old)
	if s := Settle(f.dir, left); s.State != Queued || !strings.Contains(s.Reason, "the run moving main to it ended before it moved it") {
		t.Errorf("not moved: %+v", s)
	}
	testing := *left
	testing.MoveFrom = ""
	if s := Settle(f.dir, &testing); s.State != Queued || !strings.Contains(s.Reason, "ended without recording how it went") {
		t.Errorf("killed while testing: %+v", s)
	}
	// A run at work on the repository: as recorded.
	lock, err := lockRepo(f.dir, f.repo)
	if err != nil {
		t.Fatal(err)
	}
	if s := Settle(f.dir, left); s != left {
		t.Errorf("while a run holds the lock: %+v", s)
	}
	lock.Unlock()
	if s := Settle(f.dir, landed); s != landed {
		t.Errorf("a finished record was settled: %+v", s)
	}
}

func TestRecoverRecordsTheSettledLanding(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	old := f.git("rev-parse", "main")
	landed := f.land("one", "")
	left := &Record{Worker: "w-one", State: Testing, Branch: "one", Target: "main", TestedCommit: landed.Commit, MoveFrom: old}
	if err := save(f.dir, left); err != nil {
		t.Fatal(err)
	}
	r, err := Recover(f.dir, Candidate{Worker: "w-one", Branch: "one", Repo: f.repo, Target: "main", Record: left})
	if err != nil || r.State != Landed {
		t.Fatalf("%+v %v", r, err)
	}
	if saved, _ := LoadRecord(f.dir, "w-one"); saved.State != Landed || saved.MoveFrom != "" || saved.Commit != landed.Commit {
		t.Errorf("saved %+v", saved)
	}
}

// A run that ended while it moved the target leaves the tested merge to the next run, which
// moves the target to it without testing it again.
func TestATestedMergeLeftMidMoveIsMovedWithoutTestingAgain(t *testing.T) {
	f := newFixture(t)
	f.commit("one", "b.txt", "b\n")
	old := f.git("rev-parse", "main")
	ran := filepath.Join(t.TempDir(), "ran")
	test := "touch " + ran
	// A dirty checkout of main: tested, not moved; then made clean and the record made the one
	// a run killed during the move leaves.
	if err := os.WriteFile(filepath.Join(f.repo, "a.txt"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := f.land("one", test)
	f.git("checkout", "--", "a.txt")
	first.State, first.MoveFrom, first.Reason = Testing, old, ""
	if err := save(f.dir, first); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(ran); err != nil {
		t.Fatal(err)
	}
	r, err := f.landWith("one", Options{TestCommand: test})
	if err != nil || r.State != Landed || r.Commit != first.TestedCommit || f.git("rev-parse", "main") != first.TestedCommit {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(ran); !os.IsNotExist(err) {
		t.Error("the merge was tested again")
	}
}

func TestTailReadsOnlyTheEndAndIsSafeToShow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	big := strings.Repeat(strings.Repeat("y", 99)+"\n", 20000) + "\x1b[31mFAIL\x1b[0m: x\x07\n" + strings.Repeat("z", 1000) + "\n"
	if err := os.WriteFile(path, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	lines := Tail(path, 2)
	if len(lines) != 2 || lines[0] != "FAIL: x" || len([]rune(lines[1])) != tailWidth+1 || !strings.HasSuffix(lines[1], "…") {
		t.Fatalf("%q", lines)
	}
	if Tail(filepath.Join(t.TempDir(), "none"), 3) != nil {
		t.Error("a missing file has lines")
	}
}
