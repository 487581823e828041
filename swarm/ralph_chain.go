package swarm

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/sandbox"
)

// chainSpawnFromFlags is `swarm spawn --ralph --chain DEF`: the first step's loop starts now;
// its prompt, iterations and command come from the step's profile and the chain.
func chainSpawnFromFlags(e *env, c *cli.Context) (ralphSpawnOptions, error) {
	if c.IsSet("prompt-file") || c.IsSet("max-iterations") {
		return ralphSpawnOptions{}, fail("--chain sets each step's prompt ([agents.NAME] prompt_file) and iterations (NAME:N); leave out --prompt-file and --max-iterations")
	}
	if c.Args().Len() > 0 {
		return ralphSpawnOptions{}, fail("--chain takes each step's command from its [agents.NAME] profile; leave out -- COMMAND")
	}
	def := c.String("chain")
	steps, err := ralph.ParseChain(def)
	if err != nil {
		return ralphSpawnOptions{}, fail("%w", err)
	}
	w, _, err := spawnOptionsFromFlags(c)
	if err != nil {
		return ralphSpawnOptions{}, err
	}
	dir := w.Cwd
	if dir == "" {
		dir, _ = os.Getwd()
	}
	dir, _ = filepath.Abs(dir)
	cfg := config.Load(dir)
	cs, global, err := chainState(cfg, dir, def, steps, c.StringSlice("check"))
	if err != nil {
		return ralphSpawnOptions{}, err
	}
	first := cs.Steps[0]
	lo := loopOptionsFromFlags(c)
	lo.promptArg, lo.max, lo.maxSet = first.Profile.PromptFile, first.MaxIterations, true
	if err := lo.check(e); err != nil {
		return ralphSpawnOptions{}, err
	}
	w.Argv = append([]string{}, first.Profile.Cmd...)
	if err := chainSandbox(c, &w, cs); err != nil {
		return ralphSpawnOptions{}, err
	}
	rc, err := regentConfig(c, cfg)
	if err != nil {
		return ralphSpawnOptions{}, err
	}
	ls, err := loopSettingsWith(c, cfg, nil)
	if err != nil {
		return ralphSpawnOptions{}, err
	}
	for i := range cs.Steps {
		cs.Steps[i].Checks = append(append([]string{}, global...), cs.Steps[i].Checks...)
	}
	return ralphSpawnOptions{worker: w, loop: lo, settings: ls, regent: rc, chain: cs}, nil
}

// chainSandbox decides the sandbox of a chain's worker, whose steps share it: confined when
// any step's command skips its permission prompts (or as the flags and configuration say).
func chainSandbox(c *cli.Context, w *spawnOptions, cs *ralph.ChainState) error {
	argv := w.Argv
	for _, st := range cs.Steps {
		if sandbox.SkipsPermissions(st.Profile.Cmd) {
			argv = st.Profile.Cmd
			break
		}
	}
	return w.decideSandbox(c, argv)
}

// chainState resolves the steps' profiles and splits the --check values into the steps' own
// (AGENT:SPEC) and those for every step (their scripts found from dir).
func chainState(cfg *config.Config, dir, def string, steps []ralph.ChainStep, checks []string) (*ralph.ChainState, []string, error) {
	profiles, err := cfg.Profiles()
	if err != nil {
		return nil, nil, fail("%w", err)
	}
	var global []string
	for _, spec := range checks {
		agent, rest, _ := strings.Cut(spec, ":")
		i := stepIndex(steps, agent)
		if i < 0 {
			global = append(global, spec)
			continue
		}
		steps[i].Checks = append(steps[i].Checks, rest)
	}
	cs := ralph.NewChain(uuid.NewString(), def, steps, time.Now())
	for i, s := range steps {
		p, ok := profiles[s.Agent]
		if !ok {
			return nil, nil, fail("--chain: no profile for '%s': add [agents.%s] with cmd and prompt_file to swarm.toml", s.Agent, s.Agent)
		}
		cs.Steps[i].Profile = p
	}
	for _, spec := range append(append([]string{}, global...), allStepChecks(steps)...) {
		if _, err := config.ParseCheck(spec, dir); err != nil {
			return nil, nil, fail("%w", err)
		}
	}
	return cs, global, nil
}

func stepIndex(steps []ralph.ChainStep, agent string) int {
	for i, s := range steps {
		if s.Agent == agent {
			return i
		}
	}
	return -1
}

func allStepChecks(steps []ralph.ChainStep) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Checks...)
	}
	return out
}
