package remote

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
)

// A throwaway OpenSSH server on loopback, with its own host key, one client key it accepts
// and a client configuration that names them (never the user's ~/.ssh): the tests reach it
// as a host through a real master connection.

const sshdPath = "/usr/sbin/sshd"

// testSSHD is a running sshd and the client configuration that reaches it.
type testSSHD struct {
	dir    string
	port   string
	config string // the client's ssh_config
	cmd    *exec.Cmd
}

// startSSHD starts an sshd for the test, stopped (with every process it started) when the
// test ends. Without OpenSSH the test is skipped, unless CI is set.
func startSSHD(tb testing.TB) *testSSHD {
	tb.Helper()
	for _, bin := range []string{sshdPath, "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv("CI") != "" {
				tb.Fatalf("OpenSSH is needed: %v", err)
			}
			tb.Skipf("OpenSSH is needed: %v", err)
		}
	}
	if os.Getuid() == 0 {
		// sshd's privilege separation needs its empty directory, made by its package.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	s := &testSSHD{dir: tb.TempDir(), port: freePort(tb)}
	for _, key := range []string{"host_key", "id"} {
		keygen := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", s.path(key))
		if out, err := keygen.CombinedOutput(); err != nil {
			tb.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	pub, err := os.ReadFile(s.path("id.pub"))
	if err != nil {
		tb.Fatal(err)
	}
	s.write(tb, "authorized_keys", string(pub))
	s.write(tb, "sshd_config", s.serverConfig())
	s.write(tb, "ssh_config", s.clientConfig())
	s.config = s.path("ssh_config")
	s.start(tb)
	return s
}

func (s *testSSHD) path(name string) string { return filepath.Join(s.dir, name) }

func (s *testSSHD) write(tb testing.TB, name, text string) {
	tb.Helper()
	if err := os.WriteFile(s.path(name), []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
}

// serverConfig keeps sshd's default of 10 sessions on one connection; MaxStartups is raised
// so that the connections made beside the master when it refuses more are never dropped.
// The client tells the user's shell it is not the first (SHLVL): a bash started by sshd
// then skips ~/.bashrc, and a command costs what ssh costs, not what the user's startup
// files do.
func (s *testSSHD) serverConfig() string {
	return fmt.Sprintf(`ListenAddress 127.0.0.1
Port %s
HostKey %s
PidFile none
AuthorizedKeysFile %s
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
MaxStartups 100
AcceptEnv SWARM_MUX_TEST_* SHLVL
`, s.port, s.path("host_key"), s.path("authorized_keys"))
}

func (s *testSSHD) clientConfig() string {
	return fmt.Sprintf(`Host *
  IdentityFile %s
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking no
  BatchMode yes
  LogLevel ERROR
  SendEnv SWARM_MUX_TEST_SENT
  SetEnv SWARM_MUX_TEST_SET=from-config SHLVL=1
`, s.path("id"), s.path("known_hosts"))
}

// start runs sshd in the foreground and waits until it listens; the test's end waits for the
// connections' processes to go before it stops sshd.
func (s *testSSHD) start(tb testing.TB) {
	tb.Helper()
	log, err := os.Create(s.path("sshd.log"))
	if err != nil {
		tb.Fatal(err)
	}
	s.cmd = exec.Command(sshdPath, "-D", "-e", "-f", s.path("sshd_config"))
	s.cmd.Stdout, s.cmd.Stderr = log, log
	if err := s.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	log.Close()
	tb.Cleanup(func() {
		if kids := waitNoChildren(s.cmd.Process.Pid, 10*time.Second); len(kids) > 0 {
			tb.Errorf("sshd still has connections after the test: %v", kids)
		}
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		_ = s.cmd.Wait()
	})
	until(tb, 10*time.Second, "sshd listens", func() bool {
		conn, err := net.Dial("tcp", "127.0.0.1:"+s.port)
		if err == nil {
			conn.Close()
		}
		return err == nil
	})
}

// conn is a Conn to the sshd from a state directory of the test's own, as SWARM_SSH_COMMAND
// makes it, with its master connection up; its host's "swarm" is sh, so that args are a
// shell's. The master is ended (and waited for) when the test ends.
func (s *testSSHD) conn(tb testing.TB) *Conn {
	tb.Helper()
	tb.Setenv(SSHCommandVar, "ssh -F "+s.config)
	root := tb.TempDir()
	c, err := Open(root, Host{Name: "h1", Address: "127.0.0.1:" + s.port, Swarm: "sh"})
	if err != nil {
		tb.Fatal(err)
	}
	if dir := ControlDir(root); !strings.HasPrefix(dir, root) {
		tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	}
	tb.Cleanup(func() { stopMaster(tb, c) })
	if err := c.Connect(context.Background()); err != nil {
		tb.Fatalf("connect: %v", err)
	}
	return c
}

var masterPID = regexp.MustCompile(`pid=(\d+)`)

// stopMaster ends c's master connection and waits for its process to be gone.
func stopMaster(tb testing.TB, c *Conn) {
	check := exec.Command(c.ssh[0], c.base("-O", "check", c.end.Dest)...)
	out, _ := check.CombinedOutput()
	c.Forget()
	m := masterPID.FindSubmatch(out)
	if m == nil {
		return
	}
	pid, _ := strconv.Atoi(string(m[1]))
	gone := func() bool { return syscall.Kill(pid, 0) != nil }
	if !pollFor(10*time.Second, gone) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		tb.Errorf("the master connection (pid %d) outlived ssh -O exit", pid)
	}
}

// freePort is a TCP port on loopback that nothing listens on now.
func freePort(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// waitNoChildren waits until no process has pid as its parent, and returns those that still
// do at the deadline.
func waitNoChildren(pid int, within time.Duration) []int {
	var kids []int
	pollFor(within, func() bool {
		kids = childrenOf(pid)
		return len(kids) == 0
	})
	return kids
}

func childrenOf(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var kids []int
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, the last ')' ends it.
		text := string(data)
		fields := strings.Fields(text[strings.LastIndexByte(text, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			kid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			kids = append(kids, kid)
		}
	}
	return kids
}

// pollFor asks done until it says yes or within has passed.
func pollFor(within time.Duration, done func() bool) bool {
	deadline := time.Now().Add(within)
	for !done() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// until fails the test when done does not say yes within the time.
func until(tb testing.TB, within time.Duration, what string, done func() bool) {
	tb.Helper()
	if !pollFor(within, done) {
		tb.Fatalf("%s: not within %s", what, within)
	}
}

// runShell runs script on the host through run (the master's session or the ssh process).
func runShell(ctx context.Context, run runner, script string, s Streams) (int, error) {
	return run(ctx, "exec sh -c "+words.ShellWord(script), s)
}

// runner is one way to run a command line on the host.
type runner func(ctx context.Context, line string, s Streams) (int, error)
