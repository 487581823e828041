package state

import (
	"encoding/json"
	"fmt"
	"time"
)

// Reading what the Python swarm wrote: times without a zone, records swarm cannot map.

// zonelessLayouts are the ways a time is written without a zone (Python's isoformat() of a
// naive datetime, with or without fractional seconds, with a T or a space).
var zonelessLayouts = []string{
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
}

// ParseTime reads a stored time: RFC 3339 as swarm writes it, or a zone-less time as the
// Python swarm wrote it, which is local time. An empty string is the zero time.
func ParseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range zonelessLayouts {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read time %q", s)
}

// UnmarshalJSON reads a worker record as swarm or the Python swarm wrote it.
func (w *Worker) UnmarshalJSON(data []byte) error {
	type record Worker // the same fields, without this method
	aux := struct {
		*record
		Started *string `json:"started"`
	}{record: (*record)(w)}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	if aux.Started == nil {
		return nil
	}
	t, err := ParseTime(*aux.Started)
	if err != nil {
		return err
	}
	w.Started = t
	return nil
}

// decodeWorkers reads the records of a state file. A record that cannot be read as a worker
// is kept as it is, to be written back untouched, rather than lost.
func decodeWorkers(data []byte, warn func(error)) (*Workers, error) {
	ws, _, err := decodeReusing(data, warn, nil)
	return ws, err
}

// decodeReusing is decodeWorkers taking the record decoded from the very same bytes before
// from known (by those bytes) instead of decoding it again, and returning every record by its
// bytes for the next time. A record from known is shared: it must not be changed.
func decodeReusing(data []byte, warn func(error), known map[string]*Worker) (*Workers, map[string]*Worker, error) {
	var f struct {
		Workers []json.RawMessage `json:"workers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, err
	}
	ws := &Workers{byName: map[string]*Worker{}}
	byRaw := make(map[string]*Worker, len(f.Workers))
	for i, raw := range f.Workers {
		w := known[string(raw)]
		if w == nil {
			w = new(Worker)
			if err := json.Unmarshal(raw, w); err != nil {
				ws.unreadable = append(ws.unreadable, raw)
				if warn != nil {
					warn(fmt.Errorf("worker record %d in the state file cannot be read (%v); kept as it is", i+1, err))
				}
				continue
			}
		}
		byRaw[string(raw)] = w
		if w.Name == "" {
			continue
		}
		ws.byName[w.Name] = w
	}
	return ws, byRaw, nil
}
