package ralph

import (
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/cost"
)

// A new loop's checkers, hooks and stop rules: the defaults, then what the configuration files
// say, then the flags given at spawn.

// LoopFlags are the loop settings given on the command line; nil and empty mean not given.
type LoopFlags struct {
	Checks           []string // as given; script paths relative to Base
	Base             string   // the directory the command was run in
	Hooks            []config.Hook
	StagnationLimit  *int
	NoBuiltinMarkers bool
	CheckTimeout     *int
	HookTimeout      *int
	MaxCost          *float64
	Notify           []string // --notify values, in order
	LimitHeadroom    *int
	OnDangerous      *string
}

// LoopSettings are a new loop's checkers, hooks and stop rules.
type LoopSettings struct {
	Checks          []string // checker specs, script paths absolute
	Hooks           []config.Hook
	StagnationLimit int
	BuiltinMarkers  bool
	CheckTimeout    int // seconds
	HookTimeout     int
	MaxCost         float64     // USD; 0: no budget
	Pricing         cost.Prices // the project's price overrides
	Notify          config.Notify
	LimitHeadroom   int    // percent of the 5-hour limit kept in hand; 0: none
	OnDangerous     string // config.DangerousAsk or config.DangerousNo
	// Sources are the configuration files these came from, applied or ignored, in order.
	Sources []config.Source
}

// ResolveLoop is the loop settings for a loop started where cfg was loaded: the defaults,
// overridden by the [loop] tables of the user's config.toml and of the project's swarm.toml
// (cfg.Loop), overridden by the flags given. A list given as flags replaces the files' (hooks
// per type).
func ResolveLoop(cfg *config.Config, f LoopFlags) (LoopSettings, error) {
	ls := LoopSettings{StagnationLimit: DefaultStagnationLimit, BuiltinMarkers: true,
		CheckTimeout: int(DefaultCheckTimeout.Seconds()), HookTimeout: int(DefaultHookTimeout.Seconds())}
	lf, err := cfg.Loop()
	if err != nil {
		return LoopSettings{}, err
	}
	ls.Checks = lf.Checks
	override(&ls.StagnationLimit, lf.StagnationLimit)
	override(&ls.BuiltinMarkers, lf.BuiltinMarkers)
	override(&ls.CheckTimeout, lf.CheckTimeout)
	override(&ls.HookTimeout, lf.HookTimeout)
	override(&ls.StagnationLimit, f.StagnationLimit)
	override(&ls.CheckTimeout, f.CheckTimeout)
	override(&ls.HookTimeout, f.HookTimeout)
	override(&ls.MaxCost, lf.MaxCost)
	override(&ls.MaxCost, f.MaxCost)
	ls.OnDangerous = config.DangerousAsk
	override(&ls.LimitHeadroom, lf.LimitHeadroom)
	override(&ls.LimitHeadroom, f.LimitHeadroom)
	override(&ls.OnDangerous, lf.OnDangerous)
	override(&ls.OnDangerous, f.OnDangerous)
	if len(lf.Pricing) > 0 {
		ls.Pricing = lf.Pricing
	}
	if f.NoBuiltinMarkers {
		ls.BuiltinMarkers = false
	}
	if len(f.Checks) > 0 {
		ls.Checks = nil
		for _, s := range f.Checks {
			c, err := config.ParseCheck(s, f.Base)
			if err != nil {
				return LoopSettings{}, err
			}
			ls.Checks = append(ls.Checks, c.Spec)
		}
	}
	ls.Hooks = mergeHooks(lf.Hooks, f.Hooks)
	ls.Sources = cfg.Sources()
	if ls.Notify, err = ResolveNotify(cfg, f.Notify); err != nil {
		return LoopSettings{}, err
	}
	return ls, nil
}

// mergeHooks puts the file's hooks and the flags' together, in the order of a loop's life; the
// flags of a type replace the file's of that type.
func mergeHooks(file map[string][]string, flags []config.Hook) []config.Hook {
	var out []config.Hook
	for _, typ := range config.HookTypes {
		n := len(out)
		for _, h := range flags {
			if h.Type == typ {
				out = append(out, h)
			}
		}
		if len(out) > n {
			continue
		}
		for _, cmd := range file[typ] {
			out = append(out, config.Hook{Type: typ, Command: cmd})
		}
	}
	return out
}
