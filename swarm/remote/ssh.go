package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"

	"github.com/swarm-dev/swarm/state"
)

// A Conn runs the host's swarm through the user's own OpenSSH client. The first use starts a
// master connection (ssh -M -N -f) that lingers for Persist after its last use, so the next
// commands skip the handshake; every command is then a session of it, asked for on its
// control socket by this package itself (mux.go), or by an ssh client process where the
// master will not open one. The master is started on its own, with no pipe of ours open in
// it: one started by a command would keep that command's output open for as long as it
// lingers. It authenticates in batch mode (no prompt can hang a script): keys come from the
// agent or ~/.ssh/config.

// SSHCommandVar names the environment variable that replaces the ssh command, split on
// spaces ("ssh -F ./ssh_config"), as GIT_SSH_COMMAND does for git.
const SSHCommandVar = "SWARM_SSH_COMMAND"

// DefaultPersist is how long a master connection lingers after its last use.
const DefaultPersist = 60 * time.Second

// DefaultConnectTimeout bounds the handshake of a new connection.
const DefaultConnectTimeout = 5 * time.Second

// Conn is the way to one host.
type Conn struct {
	Host           Host
	end            Endpoint
	ssh            []string
	control        string
	Persist        time.Duration
	ConnectTimeout time.Duration
	// Hello is what the host's swarm last said of itself through this connection.
	Hello Hello
}

// Open is the way to h from the state directory at root (whose control directory holds the
// master's socket).
func Open(root string, h Host) (*Conn, error) {
	end, err := ParseAddress(h.Address)
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", h.Name, err)
	}
	dir := ControlDir(root)
	if err := makePrivateDir(dir); err != nil {
		return nil, fmt.Errorf("cannot make the SSH control directory: %w", err)
	}
	ssh := strings.Fields(os.Getenv(SSHCommandVar))
	if len(ssh) == 0 {
		ssh = []string{"ssh"}
	}
	// The socket is named after the address as well: a host removed and added again
	// elsewhere under its old name must not reach the old machine through a lingering master.
	sum := sha256.Sum256([]byte(h.Address))
	control := filepath.Join(dir, h.Name+"-"+hex.EncodeToString(sum[:4]))
	persist := DefaultPersist
	if h.Persist > 0 {
		persist = time.Duration(h.Persist) * time.Second
	}
	return &Conn{Host: h, end: end, ssh: ssh, control: control,
		Persist: persist, ConnectTimeout: DefaultConnectTimeout}, nil
}

// maxControlPath leaves room in a socket address (107 bytes) for the ".XXXXXXXXXXXXXXXX"
// ssh appends while it makes the socket, and for the longest socket name (a host name and
// "-" and 8 hex digits).
const maxControlPath = 107 - 17 - 32 - 9

// ControlDir is where the master connections of the state directory at root keep their
// sockets: root/ssh, or, where that path is too long for a socket address, a directory under
// /tmp named after root (made 0700, as the sockets in it would let anyone in it use the
// connections).
func ControlDir(root string) string {
	if dir := filepath.Join(root, "ssh"); len(dir)+1 <= maxControlPath {
		return dir
	}
	sum := sha256.Sum256([]byte(root))
	// Not os.TempDir: a TMPDIR deep in a work tree is as long as the path it stands in for.
	return filepath.Join("/tmp", fmt.Sprintf("swarm-ssh-%d", os.Getuid()), hex.EncodeToString(sum[:6]))
}

// makePrivateDir makes dir and checks that it, and a parent swarm made under /tmp, are this
// user's alone: a directory someone else made there could hand out its connections.
func makePrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if !strings.HasPrefix(d, "/tmp/swarm-ssh-") {
			continue
		}
		fi, err := os.Lstat(d)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !fi.IsDir() || (ok && int(st.Uid) != os.Getuid()) || fi.Mode().Perm()&0o077 != 0 {
			return fmt.Errorf("%s is not a directory of this user's alone", d)
		}
	}
	return nil
}

// Describe is the host as a user names it in a message: "h1 (me@box:2222)".
func (c *Conn) Describe() string { return fmt.Sprintf("%s (%s)", c.Host.Name, c.Host.Address) }

// SSHLine is the ssh command line a user would type to reach the host by hand.
func (c *Conn) SSHLine() string {
	line := "ssh"
	if c.end.Port != "" {
		line += " -p " + c.end.Port
	}
	return line + " " + c.end.Dest
}

// base is the ssh command with the options every use shares.
func (c *Conn) base(extra ...string) []string {
	args := append([]string{}, c.ssh[1:]...)
	args = append(args, "-o", "BatchMode=yes", "-o", "ControlPath="+c.control)
	if c.end.Port != "" {
		args = append(args, "-p", c.end.Port)
	}
	return append(args, extra...)
}

// Connect makes sure a master connection is up, starting one when none answers. A failure
// is an *Error that says what went wrong (authentication, an unknown host key, no route).
func (c *Conn) Connect(ctx context.Context) error {
	if c.masterUp() {
		return nil
	}
	lock, err := state.AcquireLock(c.control + ".lock")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if c.masterUp() {
		return nil
	}
	_ = os.Remove(c.control)
	logPath := c.control + ".log"
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer log.Close()
	timeout := int(c.ConnectTimeout.Seconds() + 0.5)
	args := c.base("-o", "ControlMaster=yes", "-o", fmt.Sprintf("ControlPersist=%ds", int(c.Persist.Seconds())),
		"-o", fmt.Sprintf("ConnectTimeout=%d", max(timeout, 1)), "-o", "ServerAliveInterval=5",
		"-o", "ServerAliveCountMax=2", "-N", "-f", c.end.Dest)
	cmd := exec.CommandContext(ctx, c.ssh[0], args...)
	cmd.Stderr = log
	runErr := cmd.Run()
	if runErr == nil && c.masterUp() {
		return nil
	}
	said, _ := os.ReadFile(logPath)
	if ctx.Err() != nil {
		return c.errorOf(KindUnreachable, "no answer within the time limit")
	}
	return c.Classify(string(said))
}

// masterUp says whether a master connection answers on the control socket.
func (c *Conn) masterUp() bool {
	conn, err := net.DialTimeout("unix", c.control, time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// Command is the host's swarm run with args, as a client of the master connection (call
// Connect first); tty asks for a terminal on the host (attach).
func (c *Conn) Command(ctx context.Context, tty bool, args ...string) *exec.Cmd {
	return c.Shell(ctx, tty, c.commandLine(args))
}

// commandLine is the host's swarm run with args, as a line for the host's login shell.
func (c *Conn) commandLine(args []string) string {
	return "exec " + SwarmWord(c.Host.Swarm) + " " + QuoteArgs(args)
}

// Shell is a command line run by the login shell of the host.
func (c *Conn) Shell(ctx context.Context, tty bool, line string) *exec.Cmd {
	extra := []string{"-o", "ControlMaster=no"}
	if tty {
		extra = append(extra, "-t")
	} else {
		extra = append(extra, "-T")
	}
	args := c.base(extra...)
	args = append(args, c.end.Dest, "--", line)
	cmd := exec.CommandContext(ctx, c.ssh[0], args...)
	// A multiplexing client hands its output to the master connection; killed at the time
	// limit, it leaves the master holding that output open until the connection itself is
	// given up (10 s on a cut network). Past the limit the output is closed without them.
	cmd.WaitDelay = 100 * time.Millisecond
	return cmd
}

// Disconnect ends the master connection now, if one is up.
func (c *Conn) Disconnect() error {
	if !c.masterUp() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.ssh[0], c.base("-O", "exit", c.end.Dest)...)
	if out, err := cmd.CombinedOutput(); err != nil && c.masterUp() {
		return fmt.Errorf("cannot close the connection to %s: %s", c.Describe(), strings.TrimSpace(string(out)))
	}
	return nil
}

// Forget ends the master connection and removes what this machine kept for it: for a host
// that is removed, or was never added.
func (c *Conn) Forget() {
	_ = c.Disconnect()
	for _, suffix := range []string{".lock", ".log"} {
		_ = os.Remove(c.control + suffix)
	}
}

// SwarmWord is the host's swarm command as a shell word: a path under ~ is given to the
// host's shell as "$HOME"/..., everything else quoted.
func SwarmWord(swarm string) string {
	if swarm == "" {
		swarm = "swarm"
	}
	if rest, ok := strings.CutPrefix(swarm, "~/"); ok {
		return `"$HOME"/` + words.ShellWord(rest)
	}
	return words.ShellWord(swarm)
}

// QuoteArgs quotes each argument for a POSIX shell, where it needs it, and joins them with
// spaces.
func QuoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = words.ShellWord(a)
	}
	return strings.Join(q, " ")
}
