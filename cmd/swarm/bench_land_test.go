package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Target: landing 20 small branches with a 1-second test command within 1.5 times the work
// itself, 20 times (git merge + the test command), timed in the same run in a plain clone: the
// queue (its records, lock, scratch worktree and ref moves) adds little over the merges and
// the tests. It runs only with SWARM_BENCH_LAND set, as it takes most of a minute and is the
// only benchmark that is about git rather than loops.
func BenchmarkLandTwentyBranches(b *testing.B) {
	if os.Getenv("SWARM_BENCH_LAND") == "" {
		b.Skip("set SWARM_BENCH_LAND=1 to run it")
	}
	const branches = 20
	const test = "sleep 1"
	s := newBenchSwarm(b)
	s.env = append(s.env, "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@swarm.invalid",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@swarm.invalid")
	repo := filepath.Join(s.work, "repo")
	benchGit(b, s, s.work, "init", "-q", "-b", "main", repo)
	benchGit(b, s, repo, "commit", "-q", "--allow-empty", "-m", "base")
	names := make([]string, branches)
	for i := range names {
		names[i] = fmt.Sprintf("w%02d", i+1)
		s.runIn(repo, "spawn", "--name", names[i], "--worktree", "--", "sh", "-c",
			fmt.Sprintf("echo %d > %s.txt && git add %s.txt && git commit -qm %s", i, names[i], names[i], names[i]))
	}
	s.runIn(repo, append([]string{"wait", "--timeout", "60"}, names...)...)
	reference := benchMergeAndTest(b, s, repo, names, test)
	var landed time.Duration
	benchOnce(b, func() {
		landed, _ = s.runIn(repo, "land", "--all", "--test-command", test)
	})
	if got := benchGit(b, s, repo, "log", "--format=%s", "--grep=^Land ", "main"); strings.Count(got, "\n")+1 != branches {
		b.Fatalf("landed:\n%s\nwant %d landings", got, branches)
	}
	b.ReportMetric(landed.Seconds(), "land-s")
	b.ReportMetric(reference.Seconds(), "merge+test-s")
	b.ReportMetric(landed.Seconds()/reference.Seconds(), "ratio")
}

// benchMergeAndTest is the work itself: in a clone of repo, each branch merged as land merges
// it and the test command run after each merge, one after the other.
func benchMergeAndTest(b *testing.B, s *benchSwarm, repo string, names []string, test string) time.Duration {
	b.Helper()
	clone := filepath.Join(s.work, "reference")
	benchGit(b, s, s.work, "clone", "-q", repo, clone)
	start := time.Now()
	for _, n := range names {
		benchGit(b, s, clone, "merge", "--no-ff", "--no-edit", "-q", "-m", "Land "+n, "origin/"+n)
		cmd := exec.Command("sh", "-c", test)
		cmd.Dir, cmd.Env = clone, s.env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", test, err, out)
		}
	}
	return time.Since(start)
}

// benchGit runs git in dir with the benchmark's environment and returns its output.
func benchGit(b *testing.B, s *benchSwarm, dir string, args ...string) string {
	b.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
