package swarm

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/sandbox"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/ralph/words"
)

// `swarm sandbox`: what this machine offers for confining agents. The facts come from the
// probe in ralph/sandbox (which alone runs bubblewrap) and the configuration; what is made of
// them here is pure (sandboxReportOf), the words for a terminal too (printSandboxReport).

func sandboxCommand() *cli.Command {
	return &cli.Command{
		Name:  "sandbox",
		Usage: "what this machine offers for confining agents: check",
		Description: `Agents run inside bubblewrap when their command skips its permission prompts (the
default, --sandbox=auto), or always with --sandbox; see swarm guide commands for the flags.

Examples:
   swarm sandbox check
   swarm sandbox check --format json | jq .can_sandbox`,
		Subcommands: []*cli.Command{sandboxCheckCommand()},
	}
}

func sandboxCheckCommand() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "tell whether agents can be confined here, and how (exit 0 they can, 1 they cannot)",
		Description: `Starts a sandbox as an agent's would be started and tells what it found: bubblewrap
(its path and version), whether user namespaces are usable, which networks a confined
agent can be given (--sandbox-net open, none, allow=HOST[:PORT],...), the mode and network
the configuration sets ([sandbox] in ~/.config/swarm/config.toml or the project's
swarm.toml) and what that means for the agent command it names; when agents cannot be
confined, why and what fixes it. The exit code says it for scripts: 0 when agents can be
confined here, 1 when they cannot (or the configuration cannot be read).

Examples:
   swarm sandbox check
   swarm sandbox check --format json
   swarm sandbox check >/dev/null || echo "agents here run unsandboxed"`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Usage: "text or json", Value: "text"},
		},
		Action: func(c *cli.Context) error {
			format, err := formatFlag(c, "text", "json")
			if err != nil {
				return err
			}
			if c.NArg() > 0 {
				return usageError("swarm sandbox check [--format text|json]")
			}
			return runSandboxCheck(&env{stdout: c.App.Writer, stderr: c.App.ErrWriter}, format)
		},
	}
}

// sandboxReport is what `sandbox check` tells, in its published JSON shape.
type sandboxReport struct {
	CanSandbox bool           `json:"can_sandbox"`
	Bubblewrap bubblewrapJSON `json:"bubblewrap"`
	// UserNamespaces is "usable", "off" or "unknown" (not tried, or bubblewrap failed
	// otherwise).
	UserNamespaces string `json:"user_namespaces"`
	// Networks are the --sandbox-net kinds a confined agent can be given here.
	Networks []string `json:"networks"`
	// Default is the mode and network spawn takes when given no flag.
	Default sandboxDefault `json:"default"`
	// Agent is the agent command the configuration names ([spawn] command), when it names one.
	Agent *agentSandboxJSON `json:"agent,omitempty"`
	// Problem is why agents cannot be confined here, in one line with the fix; Fix alone.
	Problem  string   `json:"problem,omitempty"`
	Fix      string   `json:"fix,omitempty"`
	Warnings []string `json:"warnings"`
}

type bubblewrapJSON struct {
	Installed bool   `json:"installed"`
	Path      string `json:"path,omitempty"`
	Version   string `json:"version,omitempty"`
}

type sandboxDefault struct {
	Mode string `json:"mode"`
	Net  string `json:"net"`
}

// agentSandboxJSON is the configured agent command and what the default mode does with it.
type agentSandboxJSON struct {
	Command          []string `json:"command"`
	SkipsPermissions bool     `json:"skips_permissions"`
	// Sandbox is what a spawn of it with no flag gets: "bwrap" (confined), "unsandboxed"
	// (wanted but impossible here), "refused" (required but impossible), "off".
	Sandbox string `json:"sandbox"`
}

func runSandboxCheck(e *env, format string) error {
	cwd, _ := os.Getwd()
	cfg := config.Load(cwd)
	settings, err := cfg.Sandbox()
	if err != nil {
		return fail("%w", err)
	}
	agent, _ := cfg.SpawnCommand()
	support := sandbox.Probed()
	version := ""
	if support.Bwrap != "" {
		version = sandbox.Version(support.Bwrap)
	}
	r, err := sandboxReportOf(support, version, settings, agent)
	if err != nil {
		return err
	}
	if format == "json" {
		if err := printJSON(e, r); err != nil {
			return err
		}
	} else {
		for _, w := range r.Warnings {
			e.warnf("%s", w)
		}
		printSandboxReport(e.stdout, r)
	}
	if !r.CanSandbox {
		return exitCode(ExitError)
	}
	return nil
}

// sandboxReportOf is the report from the probe's answer, bubblewrap's version, the
// configuration's [sandbox] and its agent command (nil: none).
func sandboxReportOf(s sandbox.Support, version string, settings config.SandboxSettings, agent []string) (sandboxReport, error) {
	mode, err := sandbox.ParseMode(settings.Mode)
	if err != nil {
		return sandboxReport{}, fail("%w", err)
	}
	net, err := sandbox.ParseNet(settings.Net)
	if err != nil {
		return sandboxReport{}, fail("%w", err)
	}
	r := sandboxReport{CanSandbox: s.OK(), UserNamespaces: s.Namespaces, Networks: []string{},
		Bubblewrap: bubblewrapJSON{Installed: s.Bwrap != "", Path: s.Bwrap, Version: version},
		Default:    sandboxDefault{Mode: string(mode), Net: net.String()}, Problem: s.Problem(), Fix: s.Fix,
		Warnings: append([]string{}, settings.Warnings...)}
	if r.UserNamespaces == "" {
		r.UserNamespaces = sandbox.NamespacesUnknown
	}
	if r.CanSandbox {
		// allow goes through swarm's own egress proxy, which needs nothing bubblewrap does not.
		r.Networks = []string{sandbox.NetOpen, sandbox.NetNone, sandbox.NetAllow}
	}
	if len(agent) > 0 {
		r.Agent = &agentSandboxJSON{Command: agent, SkipsPermissions: sandbox.SkipsPermissions(agent)}
		switch d := sandbox.Decide(mode, agent, s.Problem()); {
		case d.Confine:
			r.Agent.Sandbox = sandbox.KindBwrap
		case d.Refuse != "":
			r.Agent.Sandbox = "refused"
		case d.Unsandboxed != "":
			r.Agent.Sandbox = "unsandboxed"
		default:
			r.Agent.Sandbox = string(sandbox.Off)
		}
	}
	return r, nil
}

// modeWords says what a mode does, and, where agents cannot be confined, what becomes of them.
func modeWords(mode string, can bool) string {
	switch sandbox.Mode(mode) {
	case sandbox.Off:
		return "no agent is confined"
	case sandbox.On:
		if !can {
			return "every agent is to be confined: here they all run unsandboxed"
		}
		return "every agent is confined"
	case sandbox.Required:
		if !can {
			return "every agent must be confined: here spawn refuses them all"
		}
		return "every agent is confined, and spawn refuses one it cannot confine"
	}
	if !can {
		return "agents whose command skips its permission prompts are to be confined: here they run unsandboxed (--sandbox=required refuses them)"
	}
	return "agents whose command skips its permission prompts are confined"
}

// printSandboxReport writes the report for a person.
func printSandboxReport(out io.Writer, r sandboxReport) {
	if r.CanSandbox {
		fmt.Fprintln(out, "Sandbox: available (agents are confined with bubblewrap)")
	} else {
		fmt.Fprintf(out, "Sandbox: unavailable: %s\n", r.Problem)
	}
	switch b := r.Bubblewrap; {
	case !b.Installed:
		fmt.Fprintln(out, "Bubblewrap: not installed")
	case b.Version != "":
		fmt.Fprintf(out, "Bubblewrap: %s (version %s)\n", b.Path, b.Version)
	default:
		fmt.Fprintf(out, "Bubblewrap: %s (its version unknown)\n", b.Path)
	}
	ns := r.UserNamespaces
	if ns == sandbox.NamespacesUnknown && !r.Bubblewrap.Installed {
		ns += " (not tried without bubblewrap)"
	}
	fmt.Fprintf(out, "User namespaces: %s\n", ns)
	if len(r.Networks) > 0 {
		fmt.Fprintf(out, "Networks: %s (--sandbox-net; allow through swarm's egress proxy)\n", strings.Join(r.Networks, ", "))
	} else {
		fmt.Fprintln(out, "Networks: none (no sandbox)")
	}
	fmt.Fprintf(out, "Default: mode %s, net %s: %s\n", r.Default.Mode, r.Default.Net, modeWords(r.Default.Mode, r.CanSandbox))
	if a := r.Agent; a != nil {
		fmt.Fprintf(out, "Agent command: %s: %s\n", commandWords(a.Command), agentSandboxWords(a))
	}
	if !r.CanSandbox && r.Fix != "" {
		fmt.Fprintf(out, "Fix: %s\n", r.Fix)
	}
}

// agentSandboxWords says what a spawn of the configured agent command gets.
func agentSandboxWords(a *agentSandboxJSON) string {
	skips := "asks before it acts"
	if a.SkipsPermissions {
		skips = "skips its permission prompts"
	}
	switch a.Sandbox {
	case sandbox.KindBwrap:
		return skips + ", confined"
	case "unsandboxed":
		return skips + ", runs unsandboxed here"
	case "refused":
		return skips + ", refused here (required)"
	}
	return skips + ", not confined"
}

// commandWords is a command as typed, made safe for a terminal (it may come from a project's
// file).
func commandWords(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = words.ShellWord(a)
	}
	return screen.Printable(strings.Join(quoted, " "), 200)
}
