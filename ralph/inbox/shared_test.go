package inbox

import (
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

func rec(id, status string) Record {
	return Record{T: "inbox", ID: id, Spec: id + ".md", AddedAt: "2026-11-25T09:00:00Z", Status: status}
}

func claim(id, state string, at time.Time, commit string) Claim {
	return Claim{ID: id, Spec: id + ".md", Host: "h", Worker: "w", State: state, At: at, Commit: commit}
}

func facts(claims ...Claim) PickFacts {
	f := PickFacts{Claims: map[string]Claim{}, Now: t0, Timeout: time.Hour}
	for _, c := range claims {
		f.Claims[c.ID] = c
	}
	return f
}

func TestClaimMessageRoundTrip(t *testing.T) {
	c := Claim{ID: "q-a1b2", Spec: "x.md", Host: "build-1", Worker: "builder", State: ClaimDone, At: t0,
		Landed: "abc123", LandedOn: "swarm/spec/q-a1b2"}
	msg := c.Message()
	if !strings.HasPrefix(msg, "swarm claim q-a1b2: done\n\nSpec-Id: q-a1b2\nSpec: x.md\nHost: build-1\nWorker: builder\nState: done\nTime: 2026-11-25T10:00:00Z\n") {
		t.Errorf("message:\n%s", msg)
	}
	got, err := ParseClaim("q-a1b2", "c0ffee", msg)
	c.Commit = "c0ffee"
	if err != nil || got != c {
		t.Errorf("parsed %+v %v, want %+v", got, err, c)
	}
}

func TestClaimErrorIsOneLine(t *testing.T) {
	c := Claim{ID: "q-a1b2", State: ClaimFailed, At: t0, Error: "construct failed:\n  every iteration failed"}
	got, err := ParseClaim("q-a1b2", "", c.Message())
	if err != nil || got.Error != "construct failed: every iteration failed" {
		t.Errorf("error %q %v", got.Error, err)
	}
}

func TestParseClaimRefusesAMessageThatIsNoClaim(t *testing.T) {
	good := Claim{ID: "q-a1b2", State: ClaimActive, At: t0}.Message()
	for name, msg := range map[string]string{
		"another spec's":  strings.Replace(good, "Spec-Id: q-a1b2", "Spec-Id: q-zzzz", 1),
		"no state":        strings.Replace(good, "State: active\n", "", 1),
		"unknown state":   strings.Replace(good, "State: active", "State: busy", 1),
		"no time":         strings.Replace(good, "Time: 2026-11-25T10:00:00Z\n", "", 1),
		"not a claim":     "some commit",
		"a time unparsed": strings.Replace(good, "2026-11-25T10:00:00Z", "yesterday", 1),
	} {
		if _, err := ParseClaim("q-a1b2", "c", msg); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func TestClaimExpiresOnlyWhenActiveAndPastTheTimeout(t *testing.T) {
	old := claim("q-aaaa", ClaimActive, t0.Add(-2*time.Hour), "c1")
	if !old.Expired(t0, time.Hour) || old.Expired(t0, 3*time.Hour) {
		t.Error("active claim two hours old: expired after 1h, not after 3h")
	}
	if done := claim("q-aaaa", ClaimDone, t0.Add(-48*time.Hour), "c1"); done.Expired(t0, time.Hour) {
		t.Error("a done claim never expires")
	}
	if (Claim{}).Holder() != "?/?" || old.Holder() != "h/w" {
		t.Errorf("holders %q %q", (Claim{}).Holder(), old.Holder())
	}
}

func TestMergeRemoteAppendsNewIdsAsPending(t *testing.T) {
	local := []Record{rec("q-aaaa", Done)}
	remote := []Record{rec("q-aaaa", Pending), {T: "inbox", ID: "q-bbbb", Spec: "b.md", Status: Failed, Error: "x", CompletedAt: "t"}}
	merged, added := MergeRemote(local, remote)
	if len(merged) != 2 || merged[0].Status != Done || len(added) != 1 || added[0].ID != "q-bbbb" {
		t.Fatalf("merged %+v added %+v", merged, added)
	}
	if b := merged[1]; b.Status != Pending || b.Error != "" || b.CompletedAt != "" || b.Spec != "b.md" {
		t.Errorf("added as %+v, want pending and clean", b)
	}
}

func TestPickUnclaimedSpecIsTakenNew(t *testing.T) {
	p, held := PickShared([]Record{rec("q-aaaa", Done), rec("q-bbbb", Pending)}, facts())
	if p.Index != 1 || p.Taking != TakeNew || p.Lease != "" || p.Lost != nil || held != nil {
		t.Errorf("pick %+v held %v", p, held)
	}
}

func TestPickPassesOverAFreshClaimAndSaysWhose(t *testing.T) {
	f := facts(claim("q-aaaa", ClaimActive, t0.Add(-time.Minute), "c1"))
	p, held := PickShared([]Record{rec("q-aaaa", Pending), rec("q-bbbb", Pending)}, f)
	if p.Index != 1 || p.Taking != TakeNew || len(held) != 1 || held[0].ID != "q-aaaa" {
		t.Errorf("pick %+v held %v", p, held)
	}
}

func TestPickTakesAnExpiredClaimOverOnItsLease(t *testing.T) {
	f := facts(claim("q-aaaa", ClaimActive, t0.Add(-61*time.Minute), "c1"))
	p, _ := PickShared([]Record{rec("q-aaaa", Pending)}, f)
	if p.Index != 0 || p.Taking != TakeOver || p.Lease != "c1" {
		t.Errorf("pick %+v", p)
	}
}

func TestPickPassesOverDoneAndFailedClaimsSilently(t *testing.T) {
	f := facts(claim("q-aaaa", ClaimDone, t0.Add(-48*time.Hour), "c1"), claim("q-bbbb", ClaimFailed, t0, "c2"),
		Claim{ID: "q-cccc", State: ClaimUnreadable, Commit: "c3"})
	p, held := PickShared([]Record{rec("q-aaaa", Pending), rec("q-bbbb", Pending), rec("q-cccc", Pending)}, f)
	if p.Index != -1 || held != nil {
		t.Errorf("pick %+v held %v", p, held)
	}
}

func TestPickSkipsSpecsRefusedAtThisFetch(t *testing.T) {
	f := facts()
	f.Skip = []string{"q-aaaa"}
	if p, _ := PickShared([]Record{rec("q-aaaa", Pending), rec("q-bbbb", Pending)}, f); p.Index != 1 {
		t.Errorf("pick %+v", p)
	}
}

func TestPickResumesTheSessionsSpecOnItsOwnClaim(t *testing.T) {
	f := facts(claim("q-bbbb", ClaimActive, t0.Add(-time.Minute), "mine"))
	f.Current, f.Own = "q-bbbb", "mine"
	p, _ := PickShared([]Record{rec("q-aaaa", Pending), rec("q-bbbb", Active)}, f)
	if p.Index != 1 || p.Taking != TakeOwn || p.Lease != "mine" {
		t.Errorf("pick %+v", p)
	}
}

func TestPickResumesTheSessionsSpecWithoutAClaim(t *testing.T) {
	f := facts()
	f.Current = "q-bbbb"
	if p, _ := PickShared([]Record{rec("q-aaaa", Pending), rec("q-bbbb", Pending)}, f); p.Index != 1 || p.Taking != TakeNew {
		t.Errorf("pick %+v", p)
	}
}

func TestPickLosesTheSessionsSpecHeldBySomeoneElse(t *testing.T) {
	theirs := claim("q-bbbb", ClaimActive, t0.Add(-time.Minute), "theirs")
	f := facts(theirs)
	f.Current, f.Own = "q-bbbb", "mine"
	p, _ := PickShared([]Record{rec("q-aaaa", Pending), rec("q-bbbb", Active)}, f)
	if p.Index != -1 || p.Lost == nil || *p.Lost != theirs {
		t.Errorf("pick %+v", p)
	}
}

func TestPickLosesTheSessionsSpecWhoseOwnClaimIsDone(t *testing.T) {
	f := facts(claim("q-bbbb", ClaimDone, t0, "mine"))
	f.Current, f.Own = "q-bbbb", "mine"
	if p, _ := PickShared([]Record{rec("q-bbbb", Pending)}, f); p.Lost == nil {
		t.Errorf("a finished spec taken again: %+v", p)
	}
}

func TestPickNeverTakesAnotherAgentsClaimForItsOwn(t *testing.T) {
	// No session claim: an empty Own matches no claim.
	f := facts(Claim{ID: "q-aaaa", State: ClaimActive, At: t0})
	if p, _ := PickShared([]Record{rec("q-aaaa", Pending)}, f); p.Index != -1 {
		t.Errorf("pick %+v", p)
	}
}
