package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/swarm-dev/swarm/swarm/remote"
)

// Remote hosts for the scripts, on this machine: `sshhost start NAME` gives a host a directory
// of its own (HOME, state directory, tmux server) and an sshd every session of which sees that
// environment, so `ssh` to it reaches `swarm` as another machine would. The scripts then break
// the host on purpose: cut its network, restore it, kill it.

// sshHarness is one script's hosts and the client side they share.
type sshHarness struct {
	ts     *testscript.TestScript
	work   string
	user   string
	client string // $WORK/ssh: the key pair, config and known_hosts
	hosts  map[string]*sshHost
	order  []string
}

var sshHarnesses sync.Map // *testscript.TestScript -> *sshHarness

// harnessFor is the script's harness, made on its first sshhost command. Its cleanup is
// deferred from a command, so it runs before setupScript's (testscript runs defers last in,
// first out), which would report the hosts' and the SSH masters' processes as leftovers.
func harnessFor(ts *testscript.TestScript) *sshHarness {
	if hs, ok := sshHarnesses.Load(ts); ok {
		return hs.(*sshHarness)
	}
	hs := &sshHarness{ts: ts, work: ts.Getenv("WORK"), hosts: map[string]*sshHost{}}
	hs.client = filepath.Join(hs.work, "ssh")
	sshHarnesses.Store(ts, hs)
	ts.Defer(func() {
		sshHarnesses.Delete(ts)
		if err := hs.cleanup(); err != nil {
			ts.Fatalf("sshhost cleanup: %v", err)
		}
	})
	return hs
}

const sshhostUsage = `usage: sshhost start NAME [-netns] | cut NAME | restore NAME | kill NAME |
       env NAME CMD [ARGS...] | ssh NAME [-timeout SEC] [-o OPTION]... CMD [ARGS...]`

// cmdSSHHost is the script command sshhost.
func cmdSSHHost(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("%s", sshhostUsage)
	}
	hs := harnessFor(ts)
	verb, name, rest := args[0], args[1], args[2:]
	if verb == "env" || verb == "ssh" {
		hs.run(verb, name, rest, neg)
		return
	}
	if neg {
		ts.Fatalf("sshhost %s: ! is not supported", verb)
	}
	var err error
	switch {
	case verb == "start" && (len(rest) == 0 || len(rest) == 1 && rest[0] == "-netns"):
		err = hs.start(name, len(rest) == 1)
	case len(rest) > 0:
		ts.Fatalf("%s", sshhostUsage)
	case verb == "cut":
		err = hs.withHost(name, (*sshHost).cut)
	case verb == "restore":
		err = hs.withHost(name, (*sshHost).restore)
	case verb == "kill":
		err = hs.withHost(name, (*sshHost).kill)
	default:
		ts.Fatalf("%s", sshhostUsage)
	}
	if err != nil {
		ts.Fatalf("sshhost %s %s: %v", verb, name, err)
	}
}

func (hs *sshHarness) withHost(name string, f func(*sshHost) error) error {
	h, ok := hs.hosts[name]
	if !ok {
		return fmt.Errorf("no host %q (sshhost start it first)", name)
	}
	return f(h)
}

// hostName is what a host may be called: it names script variables too (NAME_ADDR, ...).
var hostName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

func (hs *sshHarness) start(name string, netns bool) error {
	if !hostName.MatchString(name) {
		return fmt.Errorf("a host's name is letters, digits and _, starting with a letter")
	}
	if _, ok := hs.hosts[name]; ok {
		return fmt.Errorf("host %q already started", name)
	}
	if tool := missingSSHTool(); tool != "" {
		return fmt.Errorf("sshd not installed (apt-get install openssh-server): %s not found", tool)
	}
	if netns && !canNetns() {
		return errors.New("-netns needs root and a working `ip netns add` (check [netns] first)")
	}
	if err := hs.setupClient(); err != nil {
		return err
	}
	h, err := hs.newHost(name)
	if err != nil {
		return err
	}
	hs.hosts[name] = h
	hs.order = append(hs.order, name)
	if netns {
		err = h.startInNamespace()
	} else {
		err = h.startOnLoopback()
	}
	if err != nil {
		return err
	}
	if err := hs.trustHost(h); err != nil {
		return err
	}
	hs.exportHost(h)
	return nil
}

// setupClient makes the script's key pair and client configuration, once, and tells swarm
// (and the scripts) to run the client with it.
func (hs *sshHarness) setupClient() error {
	if hs.user != "" {
		return nil
	}
	u, err := user.Current()
	if err != nil {
		return fmt.Errorf("who am I: %w", err)
	}
	if err := os.MkdirAll(hs.client, 0o700); err != nil {
		return err
	}
	if err := keygen(filepath.Join(hs.client, "id_ed25519"), "swarm-test-client"); err != nil {
		return err
	}
	config := filepath.Join(hs.client, "config")
	if err := os.WriteFile(config, []byte(clientConfig(hs.client)), 0o600); err != nil {
		return err
	}
	hs.user = u.Username
	hs.ts.Setenv("SWARM_SSH_COMMAND", "ssh -F "+config)
	return nil
}

// trustHost records the host's key where the client looks.
func (hs *sshHarness) trustHost(h *sshHost) error {
	pub, err := os.ReadFile(h.path("sshd", "host_key.pub"))
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(hs.client, "known_hosts"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(knownHostsLine(h.ip, h.port, string(pub)))
	return errors.Join(err, f.Close())
}

// exportHost sets the script's variables for the host.
func (hs *sshHarness) exportHost(h *sshHost) {
	hs.ts.Setenv(h.name+"_ADDR", h.addr())
	hs.ts.Setenv(h.name+"_HOME", h.home())
	hs.ts.Setenv(h.name+"_SWARM_DIR", h.stateDir())
	hs.ts.Setenv(h.name+"_SOCKET", h.socket)
	hs.ts.Setenv(h.name+"_TMUX_TMPDIR", h.dir)
}

// run is sshhost env (a command run here with the host's environment, inside its network
// namespace if it has one) and sshhost ssh (a command run on the host through its sshd, with
// the script's client). Their output is the script's stdout and stderr.
func (hs *sshHarness) run(verb, name string, args []string, neg bool) {
	ts := hs.ts
	h, ok := hs.hosts[name]
	if !ok {
		ts.Fatalf("sshhost %s: no host %q (sshhost start it first)", verb, name)
	}
	var argv []string
	if verb == "env" {
		argv = h.envCommand(args)
	} else {
		argv = hs.sshCommand(h, args)
	}
	if len(argv) == 0 {
		ts.Fatalf("%s", sshhostUsage)
	}
	err := ts.Exec(argv[0], argv[1:]...)
	if err != nil && !neg {
		ts.Fatalf("sshhost %s %s: %v", verb, name, err)
	}
	if err == nil && neg {
		ts.Fatalf("sshhost %s %s: unexpected success", verb, name)
	}
}

// sshCommand is $SWARM_SSH_COMMAND to the host with a connect timeout (-timeout SEC, 10 when
// not given) and any -o OPTION, then the remote command (joined by spaces and read by the
// remote shell, as ssh does).
func (hs *sshHarness) sshCommand(h *sshHost, args []string) []string {
	timeout, opts := "10", []string{}
	for len(args) > 1 && (args[0] == "-timeout" || args[0] == "-o") {
		if args[0] == "-o" {
			opts = append(opts, "-o", args[1])
		} else if _, err := strconv.Atoi(args[1]); err != nil {
			hs.ts.Fatalf("sshhost ssh: bad -timeout %q (whole seconds)", args[1])
		} else {
			timeout = args[1]
		}
		args = args[2:]
	}
	if len(args) == 0 {
		return nil
	}
	argv := strings.Fields(hs.ts.Getenv("SWARM_SSH_COMMAND"))
	argv = append(argv, "-o", "ConnectTimeout="+timeout)
	argv = append(append(argv, opts...), "-p", strconv.Itoa(h.port), hs.user+"@"+h.ip, "--")
	return append(argv, args...)
}

// cleanup ends the script's SSH masters, then every host: its processes, its sshd, its network.
// Last go the masters' control directories that swarm made outside $WORK (under /tmp, where
// the state directory's own path is too long for a socket's).
func (hs *sshHarness) cleanup() error {
	var hosts []*sshHost
	stateDirs := []string{hs.ts.Getenv("SWARM_DIR")}
	for _, name := range hs.order {
		hosts = append(hosts, hs.hosts[name])
		stateDirs = append(stateDirs, hs.hosts[name].stateDir())
	}
	endMuxMasters(hosts)
	var errs []error
	for _, h := range hosts {
		errs = append(errs, h.kill())
		if h.net != nil {
			errs = append(errs, h.net.remove())
		}
	}
	for _, dir := range stateDirs {
		for _, control := range controlDirs(dir, hs.ts.Getenv("TMPDIR")) {
			if !strings.HasPrefix(control, hs.work+string(filepath.Separator)) {
				errs = append(errs, os.RemoveAll(control))
			}
		}
	}
	return errors.Join(errs...)
}

// controlDirs is where swarm run by the script with the state directory at root keeps its
// master connections' sockets: remote.ControlDir's answer here, and the same under the
// script's TMPDIR when the answer is this process's temporary directory (swarm run by the
// script finds the script's). Both are named after root alone: neither is another script's.
func controlDirs(root, scriptTmp string) []string {
	control := remote.ControlDir(root)
	dirs := []string{control}
	if rel, err := filepath.Rel(os.TempDir(), control); err == nil && !strings.HasPrefix(rel, "..") &&
		control != filepath.Join(root, "ssh") {
		dirs = append(dirs, filepath.Join(scriptTmp, rel))
	}
	return dirs
}

// freePort asks the kernel for a port free on loopback.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
