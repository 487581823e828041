package sharedinbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/inbox"
)

func TestSyncMergesTheRemotesQueueIntoAChangedInbox(t *testing.T) {
	s := newShared(t, "q-aaaa")
	am := s.clone("a")
	// This clone's inbox is tracked and changed; the remote's has moved on meanwhile.
	if err := ralph.FinishSpec(&ralph.AgentMode{Project: am.Project, SpecID: "q-aaaa"}, "", t0); err != nil {
		t.Fatal(err)
	}
	s.queue(s.seed, "q-bbbb")
	s.git(s.seed, "add", "-A")
	s.git(s.seed, "commit", "-q", "-m", "queue b")
	s.git(s.seed, "push", "-q", "origin", "main")
	var out said
	r, err := Sync(am, out.say)
	if err != nil {
		t.Fatal(err)
	}
	if status(t, am, "q-aaaa").Status != inbox.Done || status(t, am, "q-bbbb").Status != inbox.Pending || len(r.Records) != 2 {
		t.Errorf("records after the sync: %+v", r.Records)
	}
	if !out.has("FETCH: from origin/main: q-bbbb q-bbbb.md") {
		t.Errorf("said %q", out)
	}
	if st := s.git(am.Project, "status", "--porcelain"); st != "M ralph/inbox.jsonl" {
		t.Errorf("checkout %q: only the inbox changed, nothing merged", st)
	}
	if _, err := os.Stat(filepath.Join(am.Project, "ralph/specs/q-bbbb.md")); err == nil {
		t.Error("a spec file is taken from the remote only when its spec is")
	}
}

func TestFetchClaimsTheFirstFreeSpec(t *testing.T) {
	s := newShared(t, "q-aaaa", "q-bbbb")
	am := s.clone("a")
	var out said
	rec, missing, err := Queue{}.Fetch(am, t0, out.say)
	if err != nil || rec == nil || missing || rec.ID != "q-aaaa" {
		t.Fatalf("fetched %+v %v %v", rec, missing, err)
	}
	c, ok := s.claimOnRemote("q-aaaa")
	if !ok || c.State != inbox.ClaimActive || c.Host != "host-a" || c.Worker != "w-a" || !c.At.Equal(t0) || c.Commit != am.Session.Claim {
		t.Errorf("claim %+v (session's %s)", c, am.Session.Claim)
	}
	if status(t, am, "q-aaaa").Status != inbox.Active {
		t.Error("not active in the clone")
	}
}

func TestASecondCloneSkipsTheClaimedSpec(t *testing.T) {
	s := newShared(t, "q-aaaa", "q-bbbb")
	a, b := s.clone("a"), s.clone("b")
	if _, _, err := (Queue{}).Fetch(a, t0, func(string, ...any) {}); err != nil {
		t.Fatal(err)
	}
	var out said
	rec, _, err := Queue{}.Fetch(b, t0.Add(time.Minute), out.say)
	if err != nil || rec == nil || rec.ID != "q-bbbb" {
		t.Fatalf("fetched %+v %v", rec, err)
	}
	if !out.has("FETCH: q-aaaa q-aaaa.md is claimed by host-a/w-a (renewed 1m ago); skipped") {
		t.Errorf("said %q", out)
	}
}

func TestATakeRefusedOnTheRemoteIsSkipped(t *testing.T) {
	s := newShared(t, "q-aaaa")
	a, b := s.clone("a"), s.clone("b")
	if _, _, err := (Queue{}).Fetch(a, t0, func(string, ...any) {}); err != nil {
		t.Fatal(err)
	}
	// b picked the spec from claims read before a's push.
	step, err := take(b, inbox.Record{ID: "q-aaaa", Spec: "q-aaaa.md"}, inbox.Pick{Taking: inbox.TakeNew}, t0)
	if step != ralph.ClaimSkip || err == nil || b.Session.Claim != "" {
		t.Errorf("step %d %v, session claim %q", step, err, b.Session.Claim)
	}
}

func TestFetchTakesAnExpiredClaimOver(t *testing.T) {
	s := newShared(t, "q-aaaa")
	a, b := s.clone("a"), s.clone("b")
	if _, _, err := (Queue{}).Fetch(a, t0, func(string, ...any) {}); err != nil {
		t.Fatal(err)
	}
	var out said
	rec, _, err := Queue{}.Fetch(b, t0.Add(61*time.Minute), out.say)
	if err != nil || rec == nil || rec.ID != "q-aaaa" {
		t.Fatalf("fetched %+v %v", rec, err)
	}
	if c, _ := s.claimOnRemote("q-aaaa"); c.Host != "host-b" {
		t.Errorf("claim %+v", c)
	}
	if parent := s.git(s.bare, "rev-parse", b.Session.Claim+"^"); parent != a.Session.Claim {
		t.Errorf("the claim taken over is the new one's parent: %s, want %s", parent, a.Session.Claim)
	}
	if !out.has("CLAIM: q-aaaa q-aaaa.md taken over from host-a/w-a (last renewed 1h 1m ago") {
		t.Errorf("said %q", out)
	}
}

func TestFetchTakesASpecFileFromTheRemote(t *testing.T) {
	s := newShared(t, "q-aaaa")
	am := s.clone("a")
	if err := os.Remove(filepath.Join(am.Project, "ralph/specs/q-aaaa.md")); err != nil {
		t.Fatal(err)
	}
	rec, missing, err := Queue{}.Fetch(am, t0, func(string, ...any) {})
	if err != nil || missing || rec == nil {
		t.Fatalf("fetched %+v %v %v", rec, missing, err)
	}
	if data, _ := os.ReadFile(filepath.Join(am.Project, "ralph/specs/q-aaaa.md")); string(data) != "spec q-aaaa\n" {
		t.Errorf("spec file %q", data)
	}
}

func TestASpecWithoutAFileAnywhereFailsClaimAndAll(t *testing.T) {
	s := newShared(t)
	s.queue(s.seed, "q-aaaa")
	os.Remove(filepath.Join(s.seed, "ralph/specs/q-aaaa.md"))
	s.git(s.seed, "add", "-A")
	s.git(s.seed, "commit", "-q", "-m", "a record without its spec")
	s.git(s.seed, "push", "-q", "origin", "main")
	am := s.clone("a")
	rec, missing, err := Queue{}.Fetch(am, t0, func(string, ...any) {})
	if err != nil || !missing || rec == nil {
		t.Fatalf("fetched %+v %v %v", rec, missing, err)
	}
	if c, _ := s.claimOnRemote("q-aaaa"); c.State != inbox.ClaimFailed || c.Error != "spec file not found: ralph/specs/q-aaaa.md" {
		t.Errorf("claim %+v", c)
	}
	if r := status(t, am, "q-aaaa"); r.Status != inbox.Failed {
		t.Errorf("record %+v", r)
	}
}

func TestFetchLosesTheSessionsSpecSomeoneElseHolds(t *testing.T) {
	s := newShared(t, "q-aaaa", "q-bbbb")
	a, b := s.clone("a"), s.clone("b")
	if _, _, err := (Queue{}).Fetch(b, t0, func(string, ...any) {}); err != nil {
		t.Fatal(err)
	}
	// a's interrupted session was on q-aaaa, which b holds now; a's work on it is in its checkout.
	a.Session.CurrentSpecID = "q-aaaa"
	s.write(a.Project, "half.txt", "half")
	var out said
	rec, _, err := Queue{}.Fetch(a, t0, out.say)
	if err != nil || rec == nil || rec.ID != "q-bbbb" {
		t.Fatalf("fetched %+v %v", rec, err)
	}
	if r := status(t, a, "q-aaaa"); r.Status != inbox.Failed || r.Error != "claimed by host-b/w-b (active)" {
		t.Errorf("record %+v", r)
	}
	if _, err := os.Stat(filepath.Join(a.Project, "half.txt")); err == nil || !strings.Contains(s.git(a.Project, "stash", "list"), "ralph: failed q-aaaa") {
		t.Error("the lost spec's work was not stashed")
	}
	if a.Session.SpecsFailed != 1 || !out.has("LOST: q-aaaa q-aaaa.md: claimed by host-b/w-b (active)") {
		t.Errorf("session %+v said %q", a.Session, out)
	}
}

func TestFetchWithoutTheRemoteIsUnreachable(t *testing.T) {
	s := newShared(t, "q-aaaa")
	am := s.clone("a")
	s.git(am.Project, "remote", "set-url", "origin", filepath.Join(s.root, "nowhere"))
	_, _, err := Queue{}.Fetch(am, t0, func(string, ...any) {})
	if err == nil || !strings.HasPrefix(err.Error(), "the shared remote cannot be reached: git ") {
		t.Errorf("%v", err)
	}
}

func TestARemoteInboxThatCannotBeReadIsNamed(t *testing.T) {
	s := newShared(t, "q-aaaa")
	s.write(s.seed, "ralph/inbox.jsonl", "{broken\n")
	s.git(s.seed, "commit", "-q", "-am", "broken")
	s.git(s.seed, "push", "-q", "origin", "main")
	am := s.clone("a")
	_, err := Sync(am, func(string, ...any) {})
	if err == nil || !strings.HasPrefix(err.Error(), "origin/main:ralph/inbox.jsonl:1: not an inbox record") {
		t.Errorf("%v", err)
	}
}
