package sharedinbox

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/inbox"
)

// working is an agent of a fresh clone that claimed q-aaaa and works on it.
func working(t *testing.T, s *shared, name string) *ralph.AgentMode {
	t.Helper()
	am := s.clone(name)
	rec, _, err := Queue{}.Fetch(am, t0, func(string, ...any) {})
	if err != nil || rec == nil {
		t.Fatalf("fetched %+v %v", rec, err)
	}
	am.SpecID, am.Spec = rec.ID, rec.Spec
	return am
}

func TestRenewMovesTheClaimOnItsLease(t *testing.T) {
	s := newShared(t, "q-aaaa")
	am := working(t, s, "a")
	first := am.Session.Claim
	step, err := Renew(am, t0.Add(time.Minute))
	if step != ralph.ClaimGoOn || err != nil || am.Session.Claim == first {
		t.Fatalf("renew: %d %v", step, err)
	}
	c, _ := s.claimOnRemote("q-aaaa")
	if !c.At.Equal(t0.Add(time.Minute)) || c.Commit != am.Session.Claim || c.State != inbox.ClaimActive {
		t.Errorf("claim %+v", c)
	}
}

func TestRenewAfterAReleaseIsLost(t *testing.T) {
	s := newShared(t, "q-aaaa")
	am := working(t, s, "a")
	released, err := ReleaseClaim(s.seed, "origin", "q-aaaa")
	if err != nil || released.Host != "host-a" {
		t.Fatalf("released %+v %v", released, err)
	}
	if step, _ := Renew(am, t0); step != ralph.ClaimLost {
		t.Errorf("renewing a released claim: %d", step)
	}
	if _, ok := s.claimOnRemote("q-aaaa"); ok {
		t.Error("the refused renewal made a claim")
	}
}

func TestRenewWithoutTheRemoteIsUnsent(t *testing.T) {
	s := newShared(t, "q-aaaa")
	am := working(t, s, "a")
	held := am.Session.Claim
	s.git(am.Project, "remote", "set-url", "origin", filepath.Join(s.root, "nowhere"))
	if step, err := Renew(am, t0); step != ralph.ClaimUnsent || err == nil || am.Session.Claim != held {
		t.Errorf("renew: %d %v", step, err)
	}
}

func TestAPausedAgentRenewsByClaimingAfresh(t *testing.T) {
	s := newShared(t, "q-aaaa")
	am := working(t, s, "a")
	if step, err := Release(am); step != ralph.ClaimGoOn || err != nil || am.Session.Claim != "" {
		t.Fatalf("release: %d %v", step, err)
	}
	if _, ok := s.claimOnRemote("q-aaaa"); ok {
		t.Fatal("released, the claim is still there")
	}
	if step, err := Renew(am, t0); step != ralph.ClaimGoOn || err != nil {
		t.Errorf("claimed again: %d %v", step, err)
	}
	if c, ok := s.claimOnRemote("q-aaaa"); !ok || c.Commit != am.Session.Claim {
		t.Errorf("claim %+v", c)
	}
}

func TestReleaseOfAClaimTakenOverLeavesIt(t *testing.T) {
	s := newShared(t, "q-aaaa")
	a := working(t, s, "a")
	b := s.clone("b")
	if _, _, err := (Queue{}).Fetch(b, t0.Add(2*time.Hour), func(string, ...any) {}); err != nil {
		t.Fatal(err)
	}
	if step, err := Release(a); step != ralph.ClaimUnsent || err != nil || a.Session.Claim != "" {
		t.Errorf("release: %d %v", step, err)
	}
	if c, _ := s.claimOnRemote("q-aaaa"); c.Host != "host-b" {
		t.Errorf("b's claim went: %+v", c)
	}
}

func TestFinishRecordsFailureWithWhy(t *testing.T) {
	s := newShared(t, "q-aaaa")
	am := working(t, s, "a")
	if step, err := Finish(am, Finished{Error: "construct failed"}, t0); step != ralph.ClaimGoOn || err != nil {
		t.Fatalf("finish: %d %v", step, err)
	}
	if c, _ := s.claimOnRemote("q-aaaa"); c.State != inbox.ClaimFailed || c.Error != "construct failed" {
		t.Errorf("claim %+v", c)
	}
}

func TestReleaseClaimWithoutAClaimSaysSo(t *testing.T) {
	s := newShared(t, "q-aaaa")
	_, err := ReleaseClaim(s.seed, "origin", "q-aaaa")
	if err == nil || !strings.Contains(err.Error(), "origin has no claim on q-aaaa") {
		t.Errorf("%v", err)
	}
}

func TestAnUnreadableClaimHoldsItsSpec(t *testing.T) {
	s := newShared(t, "q-aaaa")
	c := s.git(s.seed, "commit-tree", s.git(s.seed, "hash-object", "-w", "-t", "tree", "/dev/null"), "-m", "made by hand")
	s.git(s.seed, "push", "-q", "origin", c+":"+inbox.ClaimRefPrefix+"q-aaaa")
	r, err := Look(s.seed, "origin")
	if err != nil || r.Claims["q-aaaa"].State != inbox.ClaimUnreadable || r.Claims["q-aaaa"].Commit != c {
		t.Fatalf("claims %+v %v", r, err)
	}
	rec, _, err := Queue{}.Fetch(s.clone("a"), t0.Add(48*time.Hour), func(string, ...any) {})
	if err != nil || rec != nil {
		t.Errorf("took a spec an unreadable claim holds: %+v %v", rec, err)
	}
}
