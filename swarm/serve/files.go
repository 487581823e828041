package serve

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/swarm-dev/swarm/state"
)

// The server's files, in $SWARM_DIR/serve (0700): the token (0600), and the lock that makes
// one server per state directory, with the pid and address of the one that holds it.

// Dir is the server's directory in the state directory root.
func Dir(root string) string { return filepath.Join(root, "serve") }

// TokenPath is where the token is kept.
func TokenPath(root string) string { return filepath.Join(Dir(root), "token") }

// tokenRule is a token: 32 random bytes in hex.
var tokenRule = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ensureDir makes the server's directory, readable by its owner alone.
func ensureDir(root string) error {
	dir := Dir(root)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.Chmod(dir, 0o700)
}

// Token is the token kept in root, made when there is none; made says it was.
func Token(root string) (tok string, made bool, err error) {
	if err := ensureDir(root); err != nil {
		return "", false, err
	}
	data, err := os.ReadFile(TokenPath(root))
	if errors.Is(err, fs.ErrNotExist) {
		tok, err = NewToken(root)
		return tok, err == nil, err
	}
	if err != nil {
		return "", false, err
	}
	tok = strings.TrimSpace(string(data))
	if !tokenRule.MatchString(tok) {
		return "", false, fmt.Errorf("%s is damaged: 'swarm serve --new-token' makes a new one", TokenPath(root))
	}
	// Kept for its owner alone, whatever was done to the file since.
	return tok, false, os.Chmod(TokenPath(root), 0o600)
}

// NewToken makes a new token and keeps it in root, in place of the one there: logins with
// the old one end.
func NewToken(root string) (string, error) {
	if err := ensureDir(root); err != nil {
		return "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b)
	if err := state.WriteFileAtomic(TokenPath(root), []byte(tok+"\n"), 0o600); err != nil {
		return "", err
	}
	return tok, nil
}

// Running is a server holding a state directory.
type Running struct {
	PID  int
	Addr string
}

// ErrRunning says another server holds the state directory.
type ErrRunning struct{ Running }

func (e *ErrRunning) Error() string {
	if e.PID == 0 {
		return "swarm serve runs already for this state directory"
	}
	return fmt.Sprintf("swarm serve runs already for this state directory (pid %d, %s)", e.PID, e.Addr)
}

// Claim is this process's hold on the state directory as its one server.
type Claim struct {
	lock    *state.Lock
	running string
}

// ClaimDir makes this process the state directory's one server, listening at addr (see
// Announce); another's claim is an *ErrRunning naming it.
func ClaimDir(root, addr string) (*Claim, error) {
	if err := ensureDir(root); err != nil {
		return nil, err
	}
	lock, ok, err := state.TryLock(filepath.Join(Dir(root), "lock"))
	if err != nil {
		return nil, err
	}
	c := &Claim{lock: lock, running: filepath.Join(Dir(root), "running")}
	if !ok {
		return nil, &ErrRunning{readRunning(c.running)}
	}
	if err := c.Announce(addr); err != nil {
		lock.Unlock()
		return nil, err
	}
	return c, nil
}

// Announce says where the server listens, for another that is refused.
func (c *Claim) Announce(addr string) error {
	return state.WriteFileAtomic(c.running, fmt.Appendf(nil, "%d %s\n", os.Getpid(), addr), 0o600)
}

// Release lets go of the state directory.
func (c *Claim) Release() {
	_ = os.Remove(c.running)
	c.lock.Unlock()
}

// readRunning reads who holds the lock; nothing known when the file is gone or damaged.
func readRunning(path string) Running {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 512 {
		return Running{}
	}
	pid, addr, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
	n, err := strconv.Atoi(pid)
	if err != nil || !printable(addr) {
		return Running{}
	}
	return Running{PID: n, Addr: addr}
}

func printable(s string) bool {
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			return false
		}
	}
	return true
}
