package regent

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/swarm-dev/swarm/state"
)

// The Regent holds regent.lock for its whole life (so at most one runs, and "is it alive"
// never trusts a pid), describes itself in regent.json, and answers requests on a Unix socket
// in the state directory (regent.sock). The directory is the user's alone (0700), so no other
// user can claim the socket's name before the Regent binds it, or reach it; peers of another
// user are refused all the same (SamePeer). A path too long for a socket address (108 bytes)
// falls back to a name in the abstract namespace drawn at random each time a Regent starts and
// recorded in regent.json: no one can know it before it is bound.

// Files are the paths of the Regent's files in one state directory.
type Files struct {
	// Lock is held by the running Regent for its whole life.
	Lock string
	// Keeper is held by the keeper that starts the Regent again when it dies.
	Keeper string
	// Start orders starting a Regent against one that is leaving.
	Start string
	// Info is regent.json (see Info).
	Info string
	// Log is the Regent's own log.
	Log string
	// Socket is where the Regent listens when the path fits a socket address (see Address).
	Socket string
	// Error holds why the last Regent could not listen for commands; a Regent that listens
	// removes it.
	Error string
	// CrashLoop holds why the Regent was given up after dying again and again; a restart by
	// the user removes it.
	CrashLoop string
}

// FilesOf are the Regent's files in the state directory d.
func FilesOf(d *state.Dir) Files {
	at := func(name string) string { return filepath.Join(d.Root, name) }
	return Files{Lock: at("regent.lock"), Keeper: at("regent.keeper.lock"), Start: at("regent.start.lock"),
		Info: at("regent.json"), Log: at("regent.log"), Socket: at("regent.sock"), Error: at("regent.error"),
		CrashLoop: at("regent.crashloop")}
}

// Info is regent.json: who the Regent is, for status lines that need no round trip.
type Info struct {
	PID     int    `json:"pid"`
	Started string `json:"started"`
	Socket  string `json:"tmux_socket"`
	// Address is the Regent's command socket.
	Address string `json:"address"`
}

// ReadInfo reads the Regent's regent.json in d.
func ReadInfo(d *state.Dir) (Info, error) {
	var info Info
	err := state.ReadJSON(FilesOf(d).Info, &info)
	return info, err
}

// WriteInfo replaces the Regent's regent.json in d.
func WriteInfo(d *state.Dir, info Info) error {
	data, err := json.Marshal(info)
	if err != nil {
		return err
	}
	return state.WriteFileAtomic(FilesOf(d).Info, append(data, '\n'), 0o600)
}

// MaxSocketPath is the longest path a Unix socket address holds (sun_path is 108 bytes, the
// last one a NUL).
const MaxSocketPath = 107

// abstractPrefix starts the Regent's name in the abstract namespace.
const abstractPrefix = "@swarm-regent-"

// Address is where the Regent of d answers: its socket in the state directory, or, where that
// path is too long, the address the running Regent recorded ("" when none is recorded).
func Address(d *state.Dir) string {
	if p := FilesOf(d).Socket; len(p) <= MaxSocketPath {
		return p
	}
	info, err := ReadInfo(d)
	if err != nil {
		return ""
	}
	return info.Address
}

// Listen opens the Regent's socket for d, to be called only by the process that holds the
// Regent lock: regent.sock in the state directory, a stale one (left by a Regent that was
// killed) removed first, which that lock makes safe; or, where that path is too long for a
// socket, a random abstract name, which the caller records in regent.json.
func Listen(d *state.Dir) (net.Listener, error) {
	path := FilesOf(d).Socket
	if len(path) > MaxSocketPath {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		return net.Listen("unix", abstractPrefix+hex.EncodeToString(b[:]))
	}
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return net.Listen("unix", path)
}

// CannotListen is why the last Regent of d could not listen for commands, "" when it could.
func CannotListen(d *state.Dir) string {
	data, err := os.ReadFile(FilesOf(d).Error)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}
