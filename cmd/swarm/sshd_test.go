package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The sshd of a test host: Debian's OpenSSH server run in the foreground with a configuration
// of its own (never the machine's sshd or its /etc/ssh), a throwaway host key, one authorized
// key, and every session given the host's environment.

// sshdPath is the server; the harness and swarm also need the client and ssh-keygen.
const sshdPath = "/usr/sbin/sshd"

var sshTools = []string{sshdPath, "ssh", "ssh-keygen"}

// missingSSHTool names the first of sshTools this machine lacks ("" when none).
func missingSSHTool() string {
	for _, t := range sshTools {
		if _, err := exec.LookPath(t); err != nil {
			return t
		}
	}
	return ""
}

// haveSSHD answers [sshd]. In CI it holds whatever is installed: the skip line of a script
// then does not hide a machine without the server, and sshhost start fails there instead.
func haveSSHD() bool { return os.Getenv("CI") != "" || missingSSHTool() == "" }

// sshdSetup is what a host's sshd_config says.
type sshdSetup struct {
	listen         string // address:port
	hostKey        string
	authorizedKeys string
	session        string // run for every session (ForceCommand)
	user           string // the only one let in
	env            []string
}

// sshdConfig renders the configuration. Every variable goes on one SetEnv line: sshd keeps
// only the first SetEnv it reads.
func sshdConfig(s sshdSetup) (string, error) {
	var setenv []string
	for _, kv := range s.env {
		if strings.ContainsAny(kv, "\"\\\n") {
			return "", fmt.Errorf("sshd_config cannot carry %q to the sessions", kv)
		}
		setenv = append(setenv, `"`+kv+`"`)
	}
	lines := []string{
		"# A test host's sshd: nothing of the machine's own sshd configuration applies.",
		"ListenAddress " + s.listen,
		"HostKey " + s.hostKey,
		"AuthorizedKeysFile " + s.authorizedKeys,
		"PidFile none",
		"AllowUsers " + s.user,
		"PermitRootLogin prohibit-password",
		"PubkeyAuthentication yes",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"UsePAM no",
		// The keys and the configuration live in the script's temporary directory.
		"StrictModes no",
		"X11Forwarding no",
		"PrintMotd no",
		"PrintLastLog no",
		"ForceCommand " + s.session,
		"SetEnv " + strings.Join(setenv, " "),
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// sessionScript starts every session in the host's HOME (sshd would start it in the home
// directory of the user's passwd entry, which is the machine's, not the host's), running the
// command the client asked for with the user's shell, as sshd does. A session without a
// command gets an interactive shell but not a login one: a login shell's profile would set
// PATH again.
const sessionScript = `#!/bin/sh
cd "$HOME" || exit 1
cmd=$SSH_ORIGINAL_COMMAND
unset SSH_ORIGINAL_COMMAND
[ -n "$cmd" ] || exec "$SHELL" -i
exec "$SHELL" -c "$cmd"
`

// knownHostsLine is the client's record of a host key (the public key file's "TYPE KEY
// COMMENT"): a host on port 22 is named bare, any other as [address]:port.
func knownHostsLine(ip string, port int, pubKey string) string {
	f := strings.Fields(pubKey)
	if len(f) > 2 {
		f = f[:2]
	}
	name := ip
	if port != 22 {
		name = fmt.Sprintf("[%s]:%d", ip, port)
	}
	return name + " " + strings.Join(f, " ") + "\n"
}

// clientConfig is the ssh client's configuration for the script: the client reads ~/.ssh from
// the passwd entry whatever HOME says, so everything it would read or write there is named.
func clientConfig(dir string) string {
	return strings.Join([]string{
		"Host *",
		"  IdentityFile " + filepath.Join(dir, "id_ed25519"),
		"  IdentitiesOnly yes",
		"  UserKnownHostsFile " + filepath.Join(dir, "known_hosts"),
		"  GlobalKnownHostsFile /dev/null",
		"  StrictHostKeyChecking yes",
		"  BatchMode yes",
	}, "\n") + "\n"
}

// keygen makes an ed25519 key pair without a passphrase at path.
func keygen(path, comment string) error {
	cmd := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Dir(path)}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ssh-keygen: %w: %s", err, out)
	}
	return nil
}

// ensurePrivsepDir makes the directory sshd running as root insists on (a machine without the
// system's sshd running may not have it).
func ensurePrivsepDir() error {
	if os.Getuid() != 0 {
		return nil
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		return fmt.Errorf("sshd needs /run/sshd: %w", err)
	}
	return nil
}

// sshdProc is a running sshd's listener.
type sshdProc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// launchSSHD starts sshd in the foreground (inside the namespace ns when given) and waits until
// it listens at addr. The sessions get their environment from SetEnv, not from sshd's.
func launchSSHD(config, logPath, ns, addr string) (*sshdProc, error) {
	args := []string{sshdPath, "-D", "-f", config, "-E", logPath}
	if ns != "" {
		args = append([]string{"ip", "netns", "exec", ns}, args...)
	}
	logStart := fileSize(logPath)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting sshd: %w", err)
	}
	p := &sshdProc{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	if err := p.waitListening(logPath, logStart, addr); err != nil {
		p.stop(nil)
		return nil, err
	}
	return p, nil
}

// waitListening polls until this sshd said it listens (so an answer at addr is not some other
// program's that took the port first) and a connection there gets an SSH greeting.
func (p *sshdProc) waitListening(logPath string, logStart int64, addr string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		said := logSince(logPath, logStart)
		if strings.Contains(said, "Server listening on") && sshGreets(addr) {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("sshd ended before listening at %s: %s", addr, strings.TrimSpace(said))
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sshd not answering at %s after 10s: %s", addr, strings.TrimSpace(said))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sshGreets connects to addr and reads the server's first line.
func sshGreets(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "SSH-2.0-")
}

// stop ends the listener and the processes connections finds (every connection's sshd) at
// once, so a client on one sees it drop while what a session started and detached keeps
// running, and waits until they are gone.
func (p *sshdProc) stop(connections func() []int) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		var pids []int
		if connections != nil {
			pids = runningOnly(connections())
		}
		select {
		case <-p.done:
			if len(pids) == 0 || time.Now().After(deadline) {
				return
			}
		default:
			_ = p.cmd.Process.Signal(syscall.SIGKILL)
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func fileSize(path string) int64 {
	if fi, err := os.Stat(path); err == nil {
		return fi.Size()
	}
	return 0
}

// logSince is what was written to the log after offset.
func logSince(path string, offset int64) string {
	data, _ := os.ReadFile(path)
	if int64(len(data)) < offset {
		return string(data)
	}
	return string(bytes.TrimSpace(data[offset:]))
}
