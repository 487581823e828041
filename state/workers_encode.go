package state

import (
	"bytes"
	"encoding/json"
)

// The state file is {"workers": [...]} indented by two spaces, as json.MarshalIndent writes it.
// Each record is encoded on its own and the file put together from them: a record that has
// not changed since it was encoded is written again from those bytes. Fifty loops start an
// agent every few seconds, each changing its own record; encoding all fifty at every start
// was most of the time the state lock was held.

// recordPrefix is how far a record's lines are indented in the file.
const recordPrefix = "    "

// encodeRecord is w as the state file holds it.
func encodeRecord(w *Worker) (string, error) {
	b, err := json.MarshalIndent(w, recordPrefix, "  ")
	return string(b), err
}

// encodeKept is a record kept as it was read (one that is not a worker), indented as the rest.
func encodeKept(raw json.RawMessage) (string, error) {
	var compact, out bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return "", err
	}
	if err := json.Indent(&out, compact.Bytes(), recordPrefix, "  "); err != nil {
		return "", err
	}
	return out.String(), nil
}

// encode is the state file for ws. Records in known (encoded before, and not changed since:
// records that are shared never are) are taken from there; the encoding of every record
// written is returned, for the next time.
func (ws *Workers) encode(known map[*Worker]string) ([]byte, map[*Worker]string, error) {
	list := ws.List()
	records := make([]string, 0, len(list)+len(ws.unreadable))
	encoded := make(map[*Worker]string, len(list))
	for _, w := range list {
		s, ok := known[w]
		if !ok {
			var err error
			if s, err = encodeRecord(w); err != nil {
				return nil, nil, err
			}
		}
		encoded[w] = s
		records = append(records, s)
	}
	for _, raw := range ws.unreadable {
		s, err := encodeKept(raw)
		if err != nil {
			return nil, nil, err
		}
		records = append(records, s)
	}
	return stateFileOf(records), encoded, nil
}

// stateFileOf puts the encoded records together into the file's bytes.
func stateFileOf(records []string) []byte {
	if len(records) == 0 {
		return []byte("{\n  \"workers\": []\n}\n")
	}
	size := 32
	for _, r := range records {
		size += len(recordPrefix) + len(r) + 2
	}
	out := make([]byte, 0, size)
	out = append(out, "{\n  \"workers\": [\n"...)
	for i, r := range records {
		if i > 0 {
			out = append(out, ",\n"...)
		}
		out = append(out, recordPrefix...)
		out = append(out, r...)
	}
	return append(out, "\n  ]\n}\n"...)
}
