package driver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph"
)

// agentFake stands in for the driver under agent mode's COMMIT.
type agentFake struct {
	fakeDriver
	d    ralph.Dir
	said []string
}

func (f *agentFake) dir() ralph.Dir { return f.d }
func (f *agentFake) recorded(err error) {
	if err != nil {
		panic(err)
	}
}
func (f *agentFake) say(format string, args ...any) {
	f.said = append(f.said, fmt.Sprintf(format, args...))
}

// commitRepo is a repository with one commit and a change for the spec's commit, and agent
// mode on its spec q-1.
func commitRepo(t *testing.T) (*agentFake, *ralph.AgentMode, string) {
	t.Helper()
	repo := t.TempDir()
	supervisionRepo(t, repo, "ok\n")
	if err := os.WriteFile(filepath.Join(repo, "work.txt"), []byte("work\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &agentFake{d: ralph.Dir{Path: t.TempDir()}}
	if err := os.MkdirAll(filepath.Join(repo, "ralph"), 0o755); err != nil {
		t.Fatal(err)
	}
	return f, &ralph.AgentMode{Project: repo, SpecID: "q-1", Spec: "x.md", Stage: ralph.StageConstruct}, repo
}

var specMessage = ralph.CommitMessage(ralph.SpecFacts{ID: "q-1", Spec: "x.md"})

// COMMIT says the construction is complete, and records that it began before it commits.
func TestAgentCommitRecordsThatItBegan(t *testing.T) {
	f, am, repo := commitRepo(t)
	hash, err := (&agentMode{drv: f}).commit(am, specMessage)
	if err != nil || hash == "" {
		t.Fatalf("commit: %q, %v", hash, err)
	}
	saved, err := f.d.LoadAgentMode()
	if err != nil || saved == nil || !saved.CommitStarted {
		t.Errorf("agent.json before the commit: %+v, %v; want commit_started", saved, err)
	}
	if len(f.said) != 1 || f.said[0] != "agent: CONSTRUCT: complete" {
		t.Errorf("said %q", f.said)
	}
	if subjects := supervisionSubjects(t, repo); len(subjects) != 3 || subjects[0] != "ralph: complete x" {
		t.Errorf("commits %q", subjects)
	}
}

// A monitor that takes COMMIT over from one stopped in it says so, not that it built again.
func TestAgentCommitTakenOverSaysSo(t *testing.T) {
	f, am, _ := commitRepo(t)
	am.CommitStarted = true
	if _, err := (&agentMode{drv: f}).commit(am, specMessage); err != nil {
		t.Fatal(err)
	}
	if len(f.said) != 1 || f.said[0] != "agent: COMMIT: an earlier attempt was cut short; committing again" {
		t.Errorf("said %q", f.said)
	}
}

// A commit that fails because the spec's commit was made meanwhile (another git of the spec
// moved HEAD under it) takes that commit instead of making a second, empty one.
func TestAgentCommitFindsTheSpecsCommitMadeMeanwhile(t *testing.T) {
	f, am, repo := commitRepo(t)
	// The hook makes the spec's commit itself, once, while the agent's own git runs: that
	// git then finds HEAD moved and fails.
	flag := filepath.Join(t.TempDir(), "made")
	hook := fmt.Sprintf("#!/bin/sh\n[ -e %[1]s ] && exit 0\ntouch %[1]s\ngit -c core.hooksPath=/dev/null commit -q --allow-empty -F \"$1\"\n", flag)
	if err := os.WriteFile(filepath.Join(repo, ".git", "hooks", "prepare-commit-msg"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	hash, err := (&agentMode{drv: f}).commit(am, specMessage)
	if err != nil {
		t.Fatalf("commit: %v (said %q)", err, f.said)
	}
	subjects := supervisionSubjects(t, repo)
	if len(subjects) != 3 || subjects[0] != "ralph: complete x" {
		t.Fatalf("commits %q, want the spec's once", subjects)
	}
	if head, _ := supervisionGit(repo, "rev-parse", "--short", "HEAD"); !strings.HasPrefix(head, hash) && !strings.HasPrefix(hash, head) {
		t.Errorf("commit returned %q, HEAD is %q", hash, head)
	}
	if strings.Contains(strings.Join(f.said, "\n"), "trying again") {
		t.Errorf("said %q: tried again though the commit was there", f.said)
	}
}
