package swarm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/sandbox"
	"github.com/swarm-dev/swarm/ralph/sandbox/egress"
)

// The network of a confined agent whose sandbox allows some hosts: the launcher runs the
// egress proxy on a socket of its own, bound into the sandbox; inside, `swarm
// __sandbox-inside` listens where HTTPS_PROXY points and relays to that socket, and ends the
// agent when the proxy is gone. The proxy lives as long as the launcher, which bubblewrap's
// agent does not outlive.

// egressRun is the network side of one confined start: nothing for open and none.
type egressRun struct {
	proxy *egress.Proxy
	dir   string
}

// startEgress starts the proxy for an allow sandbox and tells the plan where its socket is.
func startEgress(o sandbox.Launch, f *sandbox.Facts) (*egressRun, error) {
	if o.Net.Kind != sandbox.NetAllow {
		return &egressRun{}, nil
	}
	allow, err := egress.ParseAllow(o.Net.Allow)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "swarm-egress-")
	if err != nil {
		return nil, fmt.Errorf("cannot make the egress proxy's socket: %v", err)
	}
	sock := filepath.Join(dir, "proxy.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("cannot start the egress proxy: %v", err)
	}
	p := &egress.Proxy{Allow: allow, Log: o.EgressLog}
	go func() { _ = p.Serve(l) }()
	f.ProxySocket = sock
	return &egressRun{proxy: p, dir: dir}, nil
}

func (e *egressRun) close() {
	if e.proxy != nil {
		_ = e.proxy.Close()
		os.RemoveAll(e.dir)
	}
}

// wrap is the command bubblewrap runs: the agent's, behind the relay when there is a proxy.
func (e *egressRun) wrap(argv []string) []string {
	if e.proxy == nil {
		return argv
	}
	self, err := os.Executable()
	if err != nil {
		self = "swarm"
	}
	return append([]string{self, sandbox.InsideCommand, "--relay", sandbox.ProxyAddrInside + "=" + sandbox.ProxySocketInside, "--"}, argv...)
}

// checkAllow checks an allowlist spawn was given: well-formed, and something in it resolves.
func checkAllow(list []string) ([]string, error) {
	allow, err := egress.ParseAllow(list)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), egress.ResolveTimeout)
	defer cancel()
	if err := egress.Reachable(ctx, allow, net.DefaultResolver); err != nil {
		return nil, fmt.Errorf("--sandbox-net allow: %w", err)
	}
	return strings.Split(allow.String(), ","), nil
}

// defaultAllow is the model API of the agent argv runs.
func defaultAllow(argv []string, getenv func(string) string) []string {
	if len(argv) == 0 {
		return nil
	}
	return egress.DefaultAllow(argv[0], getenv)
}

func sandboxInsideCommand() *cli.Command {
	return &cli.Command{
		Name: sandbox.InsideCommand, Hidden: true, SkipFlagParsing: true,
		Usage:     "inside a sandbox: relay the agent's proxy connections to the egress proxy, and run the agent",
		ArgsUsage: "--relay ADDR=SOCKET -- COMMAND...",
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) < 4 || args[0] != "--relay" || args[2] != "--" {
				fmt.Fprintln(os.Stderr, "swarm: sandbox: usage: --relay ADDR=SOCKET -- COMMAND...")
				return exitCode(ExitSandbox)
			}
			addr, sock, _ := strings.Cut(args[1], "=")
			return exitCode(runRelayed(addr, sock, args[3:]))
		},
	}
}

// runRelayed runs argv with the relay from addr to the proxy at sock beside it; the agent is
// ended when the proxy is gone, and that start counts as a failure.
func runRelayed(addr, sock string, argv []string) int {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "swarm: sandbox: cannot listen for the agent's proxy connections on %s: %v\n", addr, err)
		return ExitSandbox
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gone := make(chan error, 1)
	go func() { gone <- egress.Relay(ctx, l, sock) }()
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "swarm: error: cannot start %s: %v\n", argv[0], err)
		return 127
	}
	go passSignals(sigs, cmd.Process)
	done := make(chan int, 1)
	go func() { done <- waitCode(cmd.Wait()) }()
	select {
	case code := <-done:
		return code
	case err := <-gone:
		if !errors.Is(err, egress.ErrProxyGone) {
			return <-done
		}
		fmt.Fprintln(os.Stderr, "swarm: sandbox: the egress proxy is gone; the agent is ended")
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		return ExitSandbox
	}
}
