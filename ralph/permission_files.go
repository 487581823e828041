package ralph

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// boxFileMax bounds what is read of a file in the box: the agent may write anything there.
const boxFileMax = 8 << 10

// ReadBoxFile reads at most boxFileMax bytes of the regular file at path in a loop's box.
func ReadBoxFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New(path + ": not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, boxFileMax))
}

// HeldIn is the request the agent waits in swarm's hook for an answer to, of those whose
// files are in box at now (see HeldRequest); ok is false when none is held.
func HeldIn(box string, now time.Time) (PermissionRequest, bool) {
	names, _ := filepath.Glob(filepath.Join(box, requestPrefix+"*"+requestSuffix))
	var found []PermissionRequest
	for _, n := range names {
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(n), requestPrefix), requestSuffix)
		if !ValidRequestID(id) {
			continue
		}
		data, err := ReadBoxFile(n)
		if err != nil {
			continue
		}
		if r, ok := ParseRequest(data); ok && r.ID == id {
			found = append(found, r)
		}
	}
	return HeldRequest(found, now)
}

// WriteAnswer answers the held request id in box with a: its answer file, made afresh (an
// answer already there, a person's or another's, is never replaced).
func WriteAnswer(box, id string, a Answer) error {
	if err := CheckAnswer(a); err != nil {
		return err
	}
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(PermissionAnswerPath(box, id), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
