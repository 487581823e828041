package main

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph/proc"
)

// sshHost is one test host: $WORK/hosts/NAME holds its HOME (home), state directory (.swarm),
// TMPDIR (tmp), tmux sockets (it is the host's TMUX_TMPDIR) and its sshd's files (sshd).
type sshHost struct {
	name, dir string
	user      string
	socket    string   // the host's tmux server (SWARM_TMUX_SOCKET)
	env       []string // what every session on the host sees
	ip        string   // where the machine reaches the host's sshd
	port      int
	net       *hostNet // nil: the host listens on the machine's loopback
	sshd      *sshdProc
}

// hostGitVars are setupScript's, which the host's sessions get the same (those the script
// has not emptied).
var hostGitVars = []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
	"GIT_COMMITTER_EMAIL", "GIT_CONFIG_NOSYSTEM"}

func (hs *sshHarness) newHost(name string) (*sshHost, error) {
	h := &sshHost{
		name:   name,
		dir:    filepath.Join(hs.work, "hosts", name),
		user:   hs.user,
		socket: "host-" + name,
	}
	for _, d := range []string{h.home(), h.stateDir(), h.path("tmp"), h.path("sshd")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	h.env = []string{
		"HOME=" + h.home(),
		"SWARM_DIR=" + h.stateDir(),
		"SWARM_TMUX_SOCKET=" + h.socket,
		"TMUX_TMPDIR=" + h.dir,
		"TMPDIR=" + h.path("tmp"),
		"PATH=" + hs.ts.Getenv("PATH"),
		"TMUX=",
	}
	// A variable the script emptied is not given to the host at all: git reads an empty
	// GIT_AUTHOR_NAME as a name, and a host without an identity is one without them.
	for _, k := range hostGitVars {
		if v := hs.ts.Getenv(k); v != "" {
			h.env = append(h.env, k+"="+v)
		}
	}
	if err := keygen(h.path("sshd", "host_key"), "swarm-test-host-"+name); err != nil {
		return nil, err
	}
	pub, err := os.ReadFile(filepath.Join(hs.client, "id_ed25519.pub"))
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(h.path("sshd", "authorized_keys"), pub, 0o600); err != nil {
		return nil, err
	}
	return h, os.WriteFile(h.path("sshd", "session"), []byte(sessionScript), 0o755)
}

func (h *sshHost) path(elem ...string) string {
	return filepath.Join(append([]string{h.dir}, elem...)...)
}
func (h *sshHost) home() string     { return h.path("home") }
func (h *sshHost) stateDir() string { return h.path(".swarm") }

// addr is how swarm is told where the host is: user@address:port.
func (h *sshHost) addr() string { return fmt.Sprintf("%s@%s:%d", h.user, h.ip, h.port) }

// marker is in the environment of every process the host runs (setupScript's, for the host).
func (h *sshHost) marker() string { return "SWARM_DIR=" + h.stateDir() }

// startOnLoopback runs the host's sshd on a free port of the machine's loopback. Another
// program may take the port between asking for it and binding it: then again on another.
func (h *sshHost) startOnLoopback() error {
	h.ip = "127.0.0.1"
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if h.port, err = freePort(); err != nil {
			return err
		}
		if err = h.launch(); err == nil || !strings.Contains(err.Error(), "Address already in use") {
			return err
		}
	}
	return err
}

// startInNamespace gives the host a network namespace of its own and runs its sshd there on
// port 22.
func (h *sshHost) startInNamespace() error {
	n, err := newHostNet(os.Getpid()*37 + int(serial.Add(1)))
	if err != nil {
		return err
	}
	h.net, h.ip, h.port = n, n.insideAddr().String(), 22
	return h.launch()
}

// launch writes the sshd configuration for the host's address and starts its sshd.
func (h *sshHost) launch() error {
	if err := ensurePrivsepDir(); err != nil {
		return err
	}
	listen := net.JoinHostPort(h.ip, strconv.Itoa(h.port))
	config, err := sshdConfig(sshdSetup{
		listen:         listen,
		hostKey:        h.path("sshd", "host_key"),
		authorizedKeys: h.path("sshd", "authorized_keys"),
		session:        h.path("sshd", "session"),
		user:           h.user,
		env:            h.env,
	})
	if err != nil {
		return err
	}
	configPath := h.path("sshd", "sshd_config")
	if err := os.WriteFile(configPath, []byte(config), 0o600); err != nil {
		return err
	}
	ns := ""
	if h.net != nil {
		ns = h.net.ns
	}
	h.sshd, err = launchSSHD(configPath, h.path("sshd", "sshd.log"), ns, listen)
	return err
}

// sshdPIDs lists the host's sshd processes: in its namespace, every sshd; on loopback, those
// holding a socket of its address and port (the listener and every connection's sshd).
func (h *sshHost) sshdPIDs() []int {
	if h.net != nil {
		var out []int
		for _, pid := range h.net.pids() {
			if runsProgram(pid, "sshd") {
				out = append(out, pid)
			}
		}
		return out
	}
	if !h.endpoint().IsValid() {
		return nil
	}
	return processesHolding(nil, "sshd", func(s tcpSocket) bool { return s.local == h.endpoint() })
}

// endpoint is where the machine reaches the host's sshd (not valid before it has one).
func (h *sshHost) endpoint() netip.AddrPort {
	ip, _ := netip.ParseAddr(h.ip)
	return netip.AddrPortFrom(ip, uint16(h.port))
}

// cut takes the host off the network: its link goes down (established connections hang), or,
// on loopback, its sshd and every connection's sshd end (established connections drop). What
// the host runs apart from them goes on.
func (h *sshHost) cut() error {
	if h.net != nil {
		return h.net.cut()
	}
	h.stopSSHD()
	return nil
}

// restore brings the host back on the network, and its sshd back if it is not running (after
// a cut on loopback, or a kill): same address, port and key.
func (h *sshHost) restore() error {
	if h.net != nil {
		if err := h.net.restore(); err != nil {
			return err
		}
	}
	if h.sshd != nil {
		return nil
	}
	return h.launch()
}

func (h *sshHost) stopSSHD() {
	if h.sshd != nil {
		h.sshd.stop(h.sshdPIDs)
		h.sshd = nil
	}
}

// kill is the host dying: its sshd and every process it runs (its tmux server among them) end
// at once, by SIGKILL, as at a power cut. Its files stay.
func (h *sshHost) kill() error {
	h.stopSSHD()
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := append(proc.Tagged(h.marker()), h.sshdPIDs()...)
		if h.net != nil {
			pids = append(pids, h.net.pids()...)
		}
		pids = runningOnly(pids)
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("host %s: processes %v still alive 5s after SIGKILL", h.name, pids)
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// envCommand is the command line that runs args here as a session on the host would: its
// environment alone, in its HOME, inside its network namespace if it has one.
func (h *sshHost) envCommand(args []string) []string {
	if len(args) == 0 {
		return nil
	}
	argv := []string{"env", "-i", "-C", h.home(), "USER=" + h.user, "LOGNAME=" + h.user, "SHELL=" + loginShell(h.user)}
	argv = append(append(argv, h.env...), args...)
	if h.net != nil {
		argv = append([]string{"ip", "netns", "exec", h.net.ns}, argv...)
	}
	return argv
}

// loginShell is the user's shell from the passwd file, which sshd gives the sessions as SHELL.
func loginShell(name string) string {
	data, _ := os.ReadFile("/etc/passwd")
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Split(line, ":"); len(f) == 7 && f[0] == name && f[6] != "" {
			return f[6]
		}
	}
	return "/bin/sh"
}

func runningOnly(pids []int) []int {
	var out []int
	for _, pid := range pids {
		if letter, _, _, ok := proc.Stat(pid); ok && letter != 'Z' && letter != 'X' {
			out = append(out, pid)
		}
	}
	return out
}

// endMuxMasters ends the SSH master connections to the hosts that the script's commands left
// running (ControlPersist keeps them after the command that opened them).
func endMuxMasters(hosts []*sshHost) {
	to := map[netip.AddrPort]bool{}
	for _, h := range hosts {
		to[h.endpoint()] = true
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		var masters []int
		for _, pid := range processesHolding(nil, "ssh", func(s tcpSocket) bool { return to[s.remote] }) {
			if isMuxMaster(pid) {
				masters = append(masters, pid)
			}
		}
		if len(masters) == 0 || time.Now().After(deadline.Add(3*time.Second)) {
			return
		}
		sig := syscall.SIGTERM
		if time.Now().After(deadline) {
			sig = syscall.SIGKILL
		}
		for _, pid := range masters {
			_ = syscall.Kill(pid, sig)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
