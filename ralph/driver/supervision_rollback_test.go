package driver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
)

// supervisionGit runs git in dir (identity and configuration come from the environment
// supervisionRepo sets).
func supervisionGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// supervisionCommit writes files (name → content) and commits them with message msg.
func supervisionCommit(dir, msg string, files map[string]string) (string, error) {
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			return "", err
		}
		if _, err := supervisionGit(dir, "add", name); err != nil {
			return "", err
		}
	}
	if _, err := supervisionGit(dir, "commit", "-q", "-m", msg); err != nil {
		return "", err
	}
	return supervisionGit(dir, "rev-parse", "HEAD")
}

// supervisionRepo turns dir into a repository with a base commit whose suite (status.txt) passes
// and a commit made before the loop, whose status.txt is preStatus. It returns that commit.
func supervisionRepo(t *testing.T, dir, preStatus string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	// Both the test's commits and supervision's reverts get this identity, and no user or
	// system configuration (signing, hooks, templates) leaks in.
	empty := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", empty)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "Ralph")
	t.Setenv("GIT_AUTHOR_EMAIL", "ralph@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Ralph")
	t.Setenv("GIT_COMMITTER_EMAIL", "ralph@example.com")
	if _, err := supervisionGit(dir, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	if _, err := supervisionCommit(dir, "base", map[string]string{"status.txt": "ok\n", ".gitignore": "PROMPT.md\n"}); err != nil {
		t.Fatal(err)
	}
	pre, err := supervisionCommit(dir, "pre-loop work", map[string]string{"pre.txt": "made before the loop\n", "status.txt": preStatus})
	if err != nil {
		t.Fatal(err)
	}
	return pre
}

func supervisionSubjects(t *testing.T, dir string) []string {
	t.Helper()
	out, err := supervisionGit(dir, "log", "--format=%s")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(out, "\n")
}

// supervisionGated is a one-iteration loop whose worker directory is a repository (see
// supervisionRepo) and whose agent runs agent there when it gets the prompt, then exits 0. The
// loop records an iteration's start commit only for iterations it starts, so the adopted
// first one is given the pre-loop commit here. It returns the repository and that commit.
func supervisionGated(t *testing.T, testCommand, preStatus string, agent func(dir string) error) (h *harness, dir, pre string) {
	t.Helper()
	h = supervisionHarness(t, setup{max: 1}, agentScript{
		submit: func(tn turn) {
			if err := agent(dir); err != nil {
				tn.h.t.Error(err)
			}
			tn.p.Exit(0)
		},
	}, ralph.SupervisionConfig{Enabled: true, TestCommand: testCommand, RollbackOnTestFailure: true, HangTimeoutSeconds: 300}, nil)
	dir = filepath.Dir(h.promptPath)
	pre = supervisionRepo(t, dir, preStatus)
	if _, err := h.dir.Update(func(st *ralph.State) error { st.IterationStartCommit = pre; return nil }); err != nil {
		t.Fatal(err)
	}
	return h, dir, pre
}

func TestSupervisionTestGatedRollback(t *testing.T) {
	const suite = "grep -qx ok status.txt"

	t.Run("passing commits kept", func(t *testing.T) {
		var made string
		h, dir, _ := supervisionGated(t, suite, "ok\n", func(dir string) (err error) {
			if _, err = supervisionCommit(dir, "add feature", map[string]string{"feature.txt": "new\n"}); err != nil {
				return err
			}
			made, err = supervisionCommit(dir, "document feature", map[string]string{"FEATURE.md": "docs\n"})
			return err
		})
		if code := h.run(h.config()); code != 0 {
			t.Errorf("Run = %d, want 0", code)
		}
		wantSupervisionLines(h, "Tests passed ✅ — commit "+ralph.ShortCommit(made)+" kept")
		if head := git.Head(dir); head != made {
			t.Errorf("HEAD %s, want the agent's last commit %s", head, made)
		}
		h.wantState(h.state(), ralph.StatusStopped, "max_iterations", 1)
		if rs := h.dir.LoadSupervision(); rs.LastCommit != ralph.ShortCommit(made) || rs.Rollbacks != 0 {
			t.Errorf("regent-state last_commit %q, rollbacks %d; want %q, 0", rs.LastCommit, rs.Rollbacks, ralph.ShortCommit(made))
		}
	})

	t.Run("breaking commits reverted newest first", func(t *testing.T) {
		var first, second string
		h, dir, _ := supervisionGated(t, suite, "ok\n", func(dir string) (err error) {
			if first, err = supervisionCommit(dir, "add helper", map[string]string{"helper.txt": "helper\n"}); err != nil {
				return err
			}
			second, err = supervisionCommit(dir, "break the suite", map[string]string{"status.txt": "broken\n"})
			return err
		})
		if code := h.run(h.config()); code != 0 {
			t.Errorf("Run = %d, want 0", code)
		}
		wantSupervisionLines(h,
			"Tests failed ❌ — reverting commit "+ralph.ShortCommit(second),
			"Tests failed ❌ — reverting commit "+ralph.ShortCommit(first),
		)
		want := []string{`Revert "add helper"`, `Revert "break the suite"`, "break the suite", "add helper", "pre-loop work", "base"}
		if got := supervisionSubjects(t, dir); !reflect.DeepEqual(got, want) {
			t.Errorf("git log %q, want %q", got, want)
		}
		// Each revert names the commit it undoes, the newest one undone first.
		bodies, err := supervisionGit(dir, "log", "-2", "--format=%b")
		if err != nil {
			t.Fatal(err)
		}
		if i, j := strings.Index(bodies, first), strings.Index(bodies, second); i < 0 || j < 0 || i > j {
			t.Errorf("revert messages do not undo %s after %s:\n%s", ralph.ShortCommit(first), ralph.ShortCommit(second), bodies)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "status.txt")); string(b) != "ok\n" {
			t.Errorf("status.txt %q after the rollback, want the passing %q", b, "ok\n")
		}
		if _, err := os.Stat(filepath.Join(dir, "helper.txt")); !os.IsNotExist(err) {
			t.Errorf("helper.txt still present after its commit was reverted (%v)", err)
		}
		// The commit made before the loop is not supervision's to touch.
		if b, err := os.ReadFile(filepath.Join(dir, "pre.txt")); err != nil || string(b) != "made before the loop\n" {
			t.Errorf("pre.txt %q (%v), want the pre-loop commit's content", b, err)
		}
		supervisionWantLog(h, "[ROLLBACK] reverted "+ralph.ShortCommit(second), "[ROLLBACK] reverted "+ralph.ShortCommit(first))
		log := supervisionIterationsLog(h)
		if strings.Index(log, "reverted "+ralph.ShortCommit(second)) > strings.Index(log, "reverted "+ralph.ShortCommit(first)) {
			t.Errorf("rollbacks logged oldest first:\n%s", log)
		}
		if rs := h.dir.LoadSupervision(); rs.Rollbacks != 2 {
			t.Errorf("regent-state rollbacks %d, want 2", rs.Rollbacks)
		}
		st := h.state()
		h.wantState(st, ralph.StatusStopped, "max_iterations", 1)
	})

	t.Run("test command cannot run", func(t *testing.T) {
		var made string
		h, dir, _ := supervisionGated(t, "no-such-binary-xyz", "ok\n", func(dir string) (err error) {
			made, err = supervisionCommit(dir, "break the suite", map[string]string{"status.txt": "broken\n"})
			return err
		})
		if code := h.run(h.config()); code != 1 {
			t.Errorf("Run = %d, want 1", code)
		}
		h.wantState(h.state(), ralph.StatusFailed, "test_command_error", 1)
		supervisionWantOut(h, "test command cannot run")
		supervisionWantNotOut(h, "reverting")
		if head := git.Head(dir); head != made {
			t.Errorf("HEAD %s, want the agent's commit %s left alone", head, made)
		}
		if got := supervisionSubjects(t, dir); got[0] != "break the suite" {
			t.Errorf("git log %q, want nothing reverted", got)
		}
		if rs := h.dir.LoadSupervision(); rs.Rollbacks != 0 {
			t.Errorf("regent-state rollbacks %d, want 0", rs.Rollbacks)
		}
	})

	t.Run("suite already failing", func(t *testing.T) {
		var made string
		// The pre-loop commit broke the suite; the iteration starts from there.
		h, dir, pre := supervisionGated(t, suite, "broken\n", func(dir string) (err error) {
			made, err = supervisionCommit(dir, "add feature", map[string]string{"feature.txt": "new\n"})
			return err
		})
		if code := h.run(h.config()); code != 0 {
			t.Errorf("Run = %d, want 0", code)
		}
		wantSupervisionLines(h, "Tests failed, but they were already failing before this iteration (at "+ralph.ShortCommit(pre)+") — commits kept")
		supervisionWantNotOut(h, "reverting")
		if head := git.Head(dir); head != made {
			t.Errorf("HEAD %s, want the agent's commit %s kept", head, made)
		}
		if got, want := supervisionSubjects(t, dir), []string{"add feature", "pre-loop work", "base"}; !reflect.DeepEqual(got, want) {
			t.Errorf("git log %q, want %q", got, want)
		}
		if rs := h.dir.LoadSupervision(); rs.Rollbacks != 0 {
			t.Errorf("regent-state rollbacks %d, want 0", rs.Rollbacks)
		}
	})
}
