package swarm

import (
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/sandbox"
	"github.com/swarm-dev/swarm/state"
)

// sandboxMode is --sandbox's value: given alone it means on, as --sandbox=MODE it names one.
type sandboxMode struct{ mode string }

func (m *sandboxMode) Set(s string) error {
	if s == "true" {
		s = string(sandbox.On)
	}
	if _, err := sandbox.ParseMode(s); err != nil {
		return err
	}
	m.mode = s
	return nil
}

func (m *sandboxMode) String() string   { return m.mode }
func (m *sandboxMode) IsBoolFlag() bool { return true }

func sandboxFlags() []cli.Flag {
	return []cli.Flag{
		&cli.GenericFlag{Name: "sandbox", Value: &sandboxMode{}, DefaultText: "auto",
			Usage: "confine the agent with bubblewrap: --sandbox (on), --sandbox=required (refuse where it cannot), --sandbox=auto (when its command skips permissions), --sandbox=off"},
		&cli.BoolFlag{Name: "no-sandbox", Usage: "never confine the agent, even when its command skips permissions (--sandbox=off)"},
		&cli.StringFlag{Name: "sandbox-net", Usage: "a confined agent's network: open, none, or allow=HOST[:PORT],... (allow alone: its model API)", DefaultText: "open"},
	}
}

// sandboxChoice is what spawn decided for the agent's sandbox, and what it says about it.
type sandboxChoice struct {
	Info  *state.SandboxInfo
	Notes []string // said as warnings once the worker runs
}

// sandboxFromFlags decides how argv, started in dir with the environment env adds to this
// one, is confined: the flags, else the configuration's [sandbox], else auto.
func sandboxFromFlags(c *cli.Context, argv []string, dir string, env map[string]string) (sandboxChoice, error) {
	var ch sandboxChoice
	settings, err := config.Load(dir).Sandbox()
	if err != nil {
		return ch, fail("%w", err)
	}
	ch.Notes = settings.Warnings
	modeText, netText := settings.Mode, settings.Net
	if c.IsSet("sandbox") {
		modeText = c.Generic("sandbox").(*sandboxMode).mode
	}
	if c.Bool("no-sandbox") {
		if c.IsSet("sandbox") && modeText != string(sandbox.Off) {
			return ch, fail("--sandbox and --no-sandbox contradict each other")
		}
		modeText = string(sandbox.Off)
	}
	if c.IsSet("sandbox-net") {
		netText = c.String("sandbox-net")
	}
	mode, err := sandbox.ParseMode(modeText)
	if err != nil {
		return ch, fail("%w", err)
	}
	net, err := sandbox.ParseNet(netText)
	if err != nil {
		return ch, fail("%w", err)
	}
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	dec := sandbox.Decide(mode, argv, sandbox.Probe())
	switch {
	case dec.Refuse != "":
		return ch, fail("%s", dec.Refuse)
	case dec.Unsandboxed != "":
		ch.Info = &state.SandboxInfo{Kind: "none", Why: dec.Unsandboxed}
		ch.Notes = append(ch.Notes, "the agent runs unsandboxed: "+dec.Unsandboxed)
	case dec.Confine:
		if net, err = checkedNet(net, argv, getenv); err != nil {
			return ch, err
		}
		ch.Info = &state.SandboxInfo{Kind: sandbox.KindBwrap, Net: net.Kind, Allow: net.Allow}
	case mode == sandbox.Off && sandbox.SkipsPermissions(argv):
		ch.Notes = append(ch.Notes, offNote())
	}
	if !dec.Confine && c.IsSet("sandbox-net") {
		return ch, fail("--sandbox-net needs a sandbox (the agent runs unconfined)")
	}
	return ch, nil
}

// decideSandbox decides how o's agent, started with argv, is confined. A confined agent's
// worktree is a clone of its own: nothing it runs in git reaches the repository's branches.
func (o *spawnOptions) decideSandbox(c *cli.Context, argv []string) error {
	dir := o.Cwd
	if dir == "" {
		dir, _ = os.Getwd()
	}
	sb, err := sandboxFromFlags(c, argv, dir, o.Env)
	if err != nil {
		return err
	}
	o.Sandbox, o.SandboxNotes = sb.Info, sb.Notes
	o.CloneWorktree = o.Worktree && sb.Info.Sandboxed()
	return nil
}

// offNote says once per user what running an agent that skips permissions unconfined means;
// "" once said.
func offNote() string {
	const note = "the sandbox is off (--no-sandbox, or mode = \"off\" in [sandbox]): this agent skips its permission prompts and can read, change and delete whatever you can (said once)"
	home, err := os.UserHomeDir()
	if err != nil {
		return note
	}
	mark := filepath.Join(home, ".config", "swarm", "no-sandbox-said")
	if _, err := os.Stat(mark); err == nil {
		return ""
	}
	_ = os.MkdirAll(filepath.Dir(mark), 0o700)
	_ = os.WriteFile(mark, nil, 0o600)
	return note
}

// warnSandbox says the notes of the spawn's sandbox choice.
func warnSandbox(e *env, notes []string) {
	for _, n := range notes {
		if n != "" {
			e.warnf("%s", n)
		}
	}
}

// checkedNet completes and checks an allow list: none given is the agent's model API; one
// that names nothing reachable is refused.
func checkedNet(net sandbox.Net, argv []string, getenv func(string) string) (sandbox.Net, error) {
	if net.Kind != sandbox.NetAllow {
		return net, nil
	}
	if len(net.Allow) == 0 {
		net.Allow = defaultAllow(argv, getenv)
		if len(net.Allow) == 0 {
			return net, fail("--sandbox-net allow: no hosts given, and %s has no known model API (use allow=HOST[:PORT],...)", filepath.Base(argv[0]))
		}
	}
	allow, err := checkAllow(net.Allow)
	if err != nil {
		return net, fail("%w", err)
	}
	net.Allow = allow
	return net, nil
}
