package swarm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/swarm/remote"
)

func hostAddCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "add a host: check the connection and the swarm there",
		ArgsUsage: "NAME [user@]address[:port]",
		Description: `Connects to the host with your own ssh (in batch mode: keys from your agent or
~/.ssh/config), and checks that it runs the same swarm as this one. --install copies
swarm there (to ~/.local/bin/swarm): this binary when the host's OS and architecture are this
one's, else bin/swarm-GOOS-GOARCH beside it (make dist builds them); swarm never installs
anything unasked. A host where git has no identity (so its
agents' commits would fail) is added with a warning that gives the command to fix it; so is
a host whose agents cannot be confined (no bubblewrap there, or user namespaces off), with
why and the fix (see swarm sandbox check).

Examples:
   swarm host add box me@box.example.com
   swarm host add gpu 10.0.0.7:2222 --install
   swarm host add old me@old --swarm /opt/swarm/bin/swarm`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "install", Usage: "copy swarm to the host (~/.local/bin/swarm) when it has none or another version"},
			&cli.StringFlag{Name: "swarm", Usage: "the swarm command on the host (default: swarm on its PATH, else ~/.local/bin/swarm)"},
			&cli.Float64Flag{Name: "timeout", Usage: "seconds to wait for the host", Value: 15},
			&cli.DurationFlag{Name: "persist", Usage: "how long the connection stays open after its last use (at least 1s)", Value: remote.DefaultPersist},
		},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) != 2 {
				return usageError("swarm host add NAME [user@]address[:port]")
			}
			check := func() error {
				if c.Duration("persist") < time.Second {
					return fail("--persist must be 1s or more")
				}
				return checkHostArgs(args[0], args[1])
			}
			return withEnv(c, check, func(e *env) error {
				ctx, cancel := context.WithTimeout(context.Background(), seconds(c.Float64("timeout")))
				defer cancel()
				h := remote.Host{Name: args[0], Address: args[1], Persist: int(c.Duration("persist").Round(time.Second).Seconds())}
				return runHostAdd(ctx, e, h, c.String("swarm"), c.Bool("install"))
			})
		},
	}
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func checkHostArgs(name, addr string) error {
	if err := remote.CheckName(name); err != nil {
		return fail("%w", err)
	}
	if _, err := remote.ParseAddress(addr); err != nil {
		return fail("%w", err)
	}
	return nil
}

func runHostAdd(ctx context.Context, e *env, h remote.Host, swarmCmd string, install bool) error {
	name, addr := h.Name, h.Address
	reg := remote.RegistryOf(e.Dir().Root)
	if old, err := reg.Get(name); err == nil {
		return fail("host %s is already added (%s); swarm host rm %s first to change it", name, old.Address, name)
	}
	h.Added = time.Now().UTC().Format(time.RFC3339)
	conn, err := remote.Open(e.Dir().Root, h)
	if err != nil {
		return fail("%w", err)
	}
	if err := addHost(ctx, conn, swarmCmd, install); err != nil {
		conn.Forget()
		return err
	}
	h = conn.Host
	if err := reg.Put(h); err != nil {
		return fail("cannot record host %s: %w", name, err)
	}
	fmt.Fprintf(e.stdout, "Added host %s (%s): swarm %s, %s/%s, %s%s\n", name, addr, hostText(h.Version), hostText(h.OS), hostText(h.Arch),
		countWorkers(conn.Hello), sandboxOfHost(conn.Hello))
	if conn.Hello.Sandbox == "none" {
		e.warnf("host %s cannot confine its agents: %s; agents there whose command skips permissions run unsandboxed, and --sandbox=required refuses them",
			name, hostText(conn.Hello.SandboxProblem))
	}
	if problem := conn.Hello.CommitProblem; problem != "" {
		// Added all the same: a host runs workers that never commit too, and one command
		// there gives it an identity.
		e.warnf("host %s cannot commit: git there has no identity (%s), so its agents' commits will fail; give it one: %s", name, hostText(problem), gitIdentityFix(conn))
	}
	return nil
}

// gitIdentityFix is the command that gives git on the host an identity.
func gitIdentityFix(conn *remote.Conn) string {
	return conn.SSHLine() + ` 'git config --global user.name "Your Name" && git config --global user.email you@example.com'`
}

// addHost connects to the host and checks its swarm (installing this one there when asked),
// filling in conn.Host.
func addHost(ctx context.Context, conn *remote.Conn, swarmCmd string, install bool) error {
	name, addr := conn.Host.Name, conn.Host.Address
	if err := conn.Connect(ctx); err != nil {
		return fail("%w", err)
	}
	hello, err := findSwarm(ctx, conn, swarmCmd)
	if err != nil && !install {
		return err
	}
	if install && (err != nil || hello.Version != Version) {
		if hello, err = installSwarm(ctx, conn); err != nil {
			return err
		}
	}
	if hello.Version != Version {
		return fail("host %s runs swarm %s, this is swarm %s: install swarm %s there, or run swarm host add %s %s --install to copy this binary (%s/%s) there",
			name, hostText(hello.Version), Version, Version, name, addr, runtime.GOOS, runtime.GOARCH)
	}
	conn.Host.OS, conn.Host.Arch, conn.Host.Version = hello.OS, hello.Arch, hello.Version
	conn.Hello = hello
	return nil
}

// sandboxOfHost says whether the host's agents can be confined, to follow the count of its
// workers: ", sandbox: bwrap", ", no sandbox"; nothing from a swarm that does not say.
func sandboxOfHost(h remote.Hello) string {
	switch h.Sandbox {
	case "":
		return ""
	case "none":
		return ", no sandbox"
	}
	return ", sandbox: " + hostText(h.Sandbox)
}

// countWorkers is what a host runs, in words: "no workers", "3 workers (2 running), 1 loop".
func countWorkers(h remote.Hello) string {
	if h.Workers == 0 {
		return "no workers"
	}
	s := fmt.Sprintf("%s (%d running)", words.Plural(h.Workers, "worker"), h.Running)
	if h.Loops > 0 {
		s += ", " + words.Plural(h.Loops, "loop")
	}
	if h.Parked > 0 {
		s += fmt.Sprintf(", %d parked on a usage limit", h.Parked)
	}
	return s
}

// findSwarm asks the host's swarm who it is: the command given, else swarm on the host's
// PATH, else ~/.local/bin/swarm (where --install puts it; a shell that is not a login shell
// often lacks it on its PATH). The command that answered is kept in conn.Host.Swarm.
func findSwarm(ctx context.Context, conn *remote.Conn, given string) (remote.Hello, error) {
	candidates := []string{"swarm", installPath}
	if given != "" {
		candidates = []string{given}
	}
	var last error
	for _, cmd := range candidates {
		conn.Host.Swarm = cmd
		hello, err := hello(ctx, conn)
		if err == nil {
			return hello, nil
		}
		var ssh *remote.Error
		if errors.As(err, &ssh) {
			return hello, fail("%w", err)
		}
		last = err
	}
	return remote.Hello{}, fail("no swarm on host %s (%s): install swarm %s there (or name it with --swarm), or run with --install to copy this one",
		conn.Host.Name, hostProblem(last), Version)
}

func oneLineOf(err error) string {
	if err == nil {
		return "no answer"
	}
	s := strings.TrimSpace(err.Error())
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// hello asks the host's swarm who it is.
func hello(ctx context.Context, conn *remote.Conn) (remote.Hello, error) {
	out, err := conn.Output(ctx, nil, "host", "__hello")
	if err != nil {
		return remote.Hello{}, hostError(err)
	}
	return readHello(conn.Host.Name, out)
}

// readHello reads what the swarm on host said of itself.
func readHello(host string, out []byte) (remote.Hello, error) {
	var h remote.Hello
	if err := json.Unmarshal(out, &h); err != nil {
		return h, fmt.Errorf("the swarm on %s gave no answer swarm understands (%v): it is no swarm of this kind, or much older", host, err)
	}
	return h, nil
}

// installPath is where --install puts swarm on a host.
const installPath = "~/.local/bin/swarm"

// installSwarm copies swarm to the host: the running binary when the host's OS and
// architecture are this machine's, else swarm-GOOS-GOARCH beside it (`make dist` builds them).
func installSwarm(ctx context.Context, conn *remote.Conn) (remote.Hello, error) {
	out, err := conn.Shell(ctx, false, "uname -sm").Output()
	if err != nil {
		return remote.Hello{}, fail("cannot tell the OS of host %s: %v", conn.Host.Name, err)
	}
	goos, goarch := unameToGo(string(out))
	self, err := os.Executable()
	if err != nil {
		return remote.Hello{}, fail("cannot find this swarm's binary: %v", err)
	}
	if goos != runtime.GOOS || goarch != runtime.GOARCH {
		if self, err = binaryFor(self, goos, goarch); err != nil {
			return remote.Hello{}, fail("host %s is %s/%s and this swarm is built for %s/%s: %v",
				conn.Host.Name, goos, goarch, runtime.GOOS, runtime.GOARCH, err)
		}
	}
	bin, err := os.Open(self)
	if err != nil {
		return remote.Hello{}, fail("cannot read this swarm's binary: %v", err)
	}
	defer bin.Close()
	script := `set -e; mkdir -p "$HOME/.local/bin"; cat > "$HOME/.local/bin/.swarm.new"; chmod 755 "$HOME/.local/bin/.swarm.new"; mv -f "$HOME/.local/bin/.swarm.new" "$HOME/.local/bin/swarm"`
	cmd := conn.Shell(ctx, false, script)
	cmd.Stdin = bin
	if out, err := cmd.CombinedOutput(); err != nil {
		return remote.Hello{}, fail("cannot copy swarm to host %s: %v %s", conn.Host.Name, err, strings.TrimSpace(string(out)))
	}
	conn.Host.Swarm = installPath
	return hello(ctx, conn)
}

// binaryFor is swarm built for another system: swarm-GOOS-GOARCH in the running binary's
// folder, or an error that says how to make it.
func binaryFor(self, goos, goarch string) (string, error) {
	if !supportedPlatform(goos, goarch) {
		return "", fmt.Errorf("swarm is built for linux and darwin on amd64 and arm64 only")
	}
	name := filepath.Join(filepath.Dir(self), "swarm-"+goos+"-"+goarch)
	if _, err := os.Stat(name); err != nil {
		return "", fmt.Errorf("no %s: build it in swarm's checkout with `make dist` (or `GOOS=%s GOARCH=%s go build -o %s ./cmd/swarm`) and run this again",
			name, goos, goarch, name)
	}
	return name, nil
}

// supportedPlatform says whether swarm is built for goos/goarch.
func supportedPlatform(goos, goarch string) bool {
	return (goos == "linux" || goos == "darwin") && (goarch == "amd64" || goarch == "arm64")
}

// unameToGo reads `uname -sm` as Go's GOOS and GOARCH.
func unameToGo(uname string) (goos, goarch string) {
	f := strings.Fields(uname)
	if len(f) < 2 {
		return "unknown", "unknown"
	}
	goos = strings.ToLower(f[0])
	switch f[1] {
	case "x86_64", "amd64":
		goarch = "amd64"
	case "aarch64", "arm64":
		goarch = "arm64"
	case "i386", "i686":
		goarch = "386"
	case "armv7l", "armv6l":
		goarch = "arm"
	default:
		goarch = f[1]
	}
	return goos, goarch
}
