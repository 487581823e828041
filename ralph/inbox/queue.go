package inbox

import (
	"fmt"
	"time"
)

// The queue's changes, as functions of the records: what the commands (and agent mode) do.

// Add queues spec as pending, at the end.
func Add(recs []Record, spec string, now time.Time) ([]Record, Record) {
	r := Record{T: "inbox", ID: NewID(recs), Spec: spec, AddedAt: Now(now), Status: Pending}
	return append(recs, r), r
}

// Remove takes out the record with id key, or else the first one of spec key. An active spec
// is being worked on and stays.
func Remove(recs []Record, key string) ([]Record, Record, error) {
	i := find(recs, key)
	if i < 0 {
		return recs, Record{}, fmt.Errorf("no spec '%s' in the inbox", key)
	}
	r := recs[i]
	if r.Status == Active {
		return recs, r, fmt.Errorf("cannot remove %s %s: it is active (an agent is working on it)", r.ID, r.Spec)
	}
	return append(append([]Record{}, recs[:i]...), recs[i+1:]...), r, nil
}

func find(recs []Record, key string) int {
	for i, r := range recs {
		if r.ID == key {
			return i
		}
	}
	for i, r := range recs {
		if r.Spec == key && r.Status == Pending {
			return i
		}
	}
	for i, r := range recs {
		if r.Spec == key {
			return i
		}
	}
	return -1
}

// Clear removes every pending spec; active, done and failed ones stay.
func Clear(recs []Record) ([]Record, int) {
	var keep []Record
	n := 0
	for _, r := range recs {
		if r.Status == Pending {
			n++
			continue
		}
		keep = append(keep, r)
	}
	return keep, n
}

// Counts is how many records are in each status.
func Counts(recs []Record) map[string]int {
	c := map[string]int{}
	for _, r := range recs {
		c[r.Status]++
	}
	return c
}

// Next is the first pending record not in skip (agent mode's FETCH), or -1.
func Next(recs []Record, skip []string) int {
	for i, r := range recs {
		if r.Status == Pending && !contains(skip, r.ID) {
			return i
		}
	}
	return -1
}

// Index is the position of the record with id, or -1.
func Index(recs []Record, id string) int {
	for i, r := range recs {
		if r.ID == id {
			return i
		}
	}
	return -1
}

// Activate marks record i as being worked on since now; a record resumed keeps the time it
// was first started.
func Activate(recs []Record, i int, now time.Time) {
	r := &recs[i]
	r.Status, r.CompletedAt, r.Error = Active, "", ""
	if r.StartedAt == "" {
		r.StartedAt = Now(now)
	}
}

// Finish marks the record with id done, or failed with why; a record removed meanwhile is
// left out.
func Finish(recs []Record, id, why string, now time.Time) {
	if i := Index(recs, id); i >= 0 {
		r := &recs[i]
		r.Status, r.CompletedAt, r.Error = Done, Now(now), ""
		if why != "" {
			r.Status, r.Error = Failed, why
		}
	}
}

// Requeue puts an active record back to pending: it was interrupted, not finished.
func Requeue(recs []Record, id string) {
	if i := Index(recs, id); i >= 0 && recs[i].Status == Active {
		recs[i].Status = Pending
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
