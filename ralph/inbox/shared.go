package inbox

import "time"

// The shared inbox's decisions, as functions of the records, the claims and the time.

// MergeRemote adds to the local records those of the remote's inbox whose id the local one
// does not have, at the end and pending: a spec queued on any host gets the same id
// everywhere, and what this clone did with its own records stays as it is. It returns the
// records and those added.
func MergeRemote(local, remote []Record) (merged, added []Record) {
	merged = local
	for _, r := range remote {
		if Index(merged, r.ID) >= 0 {
			continue
		}
		r.Status, r.StartedAt, r.CompletedAt, r.Error = Pending, "", "", ""
		merged = append(merged, r)
		added = append(added, r)
	}
	return merged, added
}

// Taking is how an agent takes the spec it picked.
type Taking int

// The ways to take a spec.
const (
	TakeNew  Taking = iota // no claim: create one (its lease: the ref must not exist yet)
	TakeOver               // an active claim past the timeout: replace it (its lease: that claim)
	TakeOwn                // the session's own claim, still active: renew it (its lease: that claim)
)

// PickFacts are what a FETCH in a shared inbox goes by.
type PickFacts struct {
	Claims  map[string]Claim // by spec id, as read from the remote at this FETCH
	Current string           // the session's interrupted spec, tried first
	Own     string           // the commit of the session's last claim: a claim that is the agent's own
	Skip    []string         // specs passed over at this FETCH already (their claim was refused)
	Now     time.Time
	Timeout time.Duration
}

// Pick is what a FETCH in a shared inbox takes.
type Pick struct {
	Index  int // of the record to take; -1: nothing is left to take
	Taking Taking
	Lease  string // the claim commit the push expects on the remote; "" for none
	// Lost is the claim of someone else on the session's interrupted spec: the spec is
	// theirs now, and what this agent did on it is to be set aside.
	Lost *Claim
}

// PickShared picks the spec a FETCH takes: the session's interrupted spec first, then the
// first pending one, each only when its claim lets this agent take it. held are the specs
// passed over because another agent works on them (active claims within the timeout); specs
// with a done or failed claim are passed over without a word.
func PickShared(recs []Record, f PickFacts) (p Pick, held []Claim) {
	if i := Index(recs, f.Current); i >= 0 && (recs[i].Status == Pending || recs[i].Status == Active) && !contains(f.Skip, f.Current) {
		c, claimed := f.Claims[f.Current]
		if claimed && !f.takeable(c) {
			return Pick{Index: -1, Lost: &c}, nil
		}
		return takeIndex(i, c, claimed, f), nil
	}
	for i, r := range recs {
		if r.Status != Pending || contains(f.Skip, r.ID) {
			continue
		}
		c, claimed := f.Claims[r.ID]
		switch {
		case !claimed || f.takeable(c):
			return takeIndex(i, c, claimed, f), held
		case c.State == ClaimActive:
			held = append(held, c)
		}
	}
	return Pick{Index: -1}, held
}

// takeable reports a claim this agent may take: its own, still active, or one past the
// timeout.
func (f PickFacts) takeable(c Claim) bool {
	return c.State == ClaimActive && (f.Own != "" && c.Commit == f.Own || c.Expired(f.Now, f.Timeout))
}

// takeIndex is the pick of record i, given its claim if it has one.
func takeIndex(i int, c Claim, claimed bool, f PickFacts) Pick {
	switch {
	case !claimed:
		return Pick{Index: i, Taking: TakeNew}
	case f.Own != "" && c.Commit == f.Own:
		return Pick{Index: i, Taking: TakeOwn, Lease: c.Commit}
	}
	return Pick{Index: i, Taking: TakeOver, Lease: c.Commit}
}
