package ralph

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/swarm-dev/swarm/ralph/cost"
)

// The [loop] table of swarm.toml: a project's checkers, hooks and stop rules, so every loop
// started in it verifies the same way. Flags given at spawn win over it.

// LoopFile is the [loop] table; nil and empty fields were not set.
type LoopFile struct {
	Checks          []string
	ChecksSet       bool
	StagnationLimit *int
	BuiltinMarkers  *bool
	CheckTimeout    *int
	HookTimeout     *int
	// Hooks by type (pre-iteration, ...), as [loop.hooks] pre_iteration = [...] lists them.
	Hooks   map[string][]string
	MaxCost *float64
	// Pricing is the [pricing."model"] tables: prices per million tokens.
	Pricing cost.Prices
}

// loopKeys are the settings of [loop], each with what a good value looks like.
var loopKeys = map[string]string{
	"checks":           "an array of checker strings",
	"stagnation_limit": "a non-negative integer",
	"builtin_markers":  "true or false",
	"check_timeout":    "a positive number of seconds",
	"hook_timeout":     "a positive number of seconds",
	"hooks":            "a table of hook lists",
	"max_cost":         "a non-negative number of US dollars",
}

// ParseLoopConfig reads the [loop] table of a swarm.toml. Unknown keys, bad checkers and hook
// types, and values of the wrong type are errors naming the file and line.
func ParseLoopConfig(path string) (*LoopFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Loop    toml.Primitive            `toml:"loop"`
		Pricing map[string]toml.Primitive `toml:"pricing"`
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return nil, tomlError(path, data, err)
	}
	lf := &LoopFile{Hooks: map[string][]string{}}
	if lf.Pricing, err = parsePricing(md, doc.Pricing); err != nil {
		return nil, tomlError(path, data, err)
	}
	if !md.IsDefined("loop") {
		return lf, nil
	}
	var table map[string]toml.Primitive
	if err := md.PrimitiveDecode(doc.Loop, &table); err != nil {
		return nil, tomlError(path, data, fmt.Errorf("loop: expected a table ([loop])"))
	}
	dir := filepath.Dir(path)
	for _, k := range md.Keys() {
		if len(k) < 2 || k[0] != "loop" {
			continue
		}
		lk := loopKey{path: k[1:], lf: lf, dir: dir}
		var err error
		switch {
		case len(k) == 2:
			err = md.PrimitiveDecode(table[k[1]], lk)
		case len(k) == 3 && k[1] == "hooks":
			var hooks map[string]toml.Primitive
			if err = md.PrimitiveDecode(table["hooks"], &hooks); err == nil {
				err = md.PrimitiveDecode(hooks[k[2]], lk)
			}
		}
		if err != nil {
			return nil, tomlError(path, data, err)
		}
	}
	// Asked once the file is known to be right, so a mistake in it is reported first.
	if err := checkConsent(path, data, "[loop"); err != nil {
		return nil, err
	}
	return lf, nil
}

// loopKey decodes one key of [loop] (or of [loop.hooks]) inside the decoder, which reports
// its errors at the key's line.
type loopKey struct {
	path []string
	lf   *LoopFile
	dir  string // swarm.toml's directory: where relative checker scripts are found
}

func (k loopKey) UnmarshalTOML(v any) error {
	if len(k.path) == 2 {
		return k.hook(v)
	}
	name := k.path[0]
	want, known := loopKeys[name]
	if !known {
		names := make([]string, 0, len(loopKeys))
		for n := range loopKeys {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Errorf("unknown key %q in [loop] (known: %s)", name, strings.Join(names, ", "))
	}
	var err error
	switch name {
	case "checks":
		err = k.checks(v)
	case "stagnation_limit":
		err = setCount(&k.lf.StagnationLimit, v, 0)
	case "builtin_markers":
		err = setBool(&k.lf.BuiltinMarkers, v)
	case "check_timeout":
		err = setCount(&k.lf.CheckTimeout, v, 1)
	case "hook_timeout":
		err = setCount(&k.lf.HookTimeout, v, 1)
	case "hooks":
		if _, ok := v.(map[string]any); !ok {
			err = errWrongValue
		}
	case "max_cost":
		usd, ok := number(v)
		if !ok || usd < 0 {
			return fmt.Errorf("%s: expected %s, got %s", name, want, tomlText(v))
		}
		k.lf.MaxCost = &usd
	}
	if err == errWrongValue {
		return fmt.Errorf("%s: expected %s, got %s", name, want, tomlText(v))
	}
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}

func (k loopKey) checks(v any) error {
	specs, ok := stringList(v)
	if !ok {
		return errWrongValue
	}
	for _, s := range specs {
		if _, err := ParseCheck(s, k.dir); err != nil {
			return err
		}
	}
	k.lf.Checks, k.lf.ChecksSet = specs, true
	return nil
}

// hook decodes [loop.hooks] pre_iteration = ["cmd", ...] (the type's dashes as underscores).
func (k loopKey) hook(v any) error {
	typ := strings.ReplaceAll(k.path[1], "_", "-")
	valid := false
	for _, t := range HookTypes {
		valid = valid || t == typ
	}
	if !valid {
		names := make([]string, len(HookTypes))
		for i, t := range HookTypes {
			names[i] = strings.ReplaceAll(t, "-", "_")
		}
		return fmt.Errorf("unknown hook type %q in [loop.hooks] (valid: %s)", k.path[1], strings.Join(names, ", "))
	}
	cmds, ok := stringList(v)
	if !ok {
		return fmt.Errorf("hooks.%s: expected an array of commands, got %s", k.path[1], tomlText(v))
	}
	for _, c := range cmds {
		if strings.TrimSpace(c) == "" {
			return fmt.Errorf("hooks.%s: empty command", k.path[1])
		}
	}
	k.lf.Hooks[typ] = cmds
	return nil
}

// parsePricing reads the [pricing."model"] tables.
func parsePricing(md toml.MetaData, tables map[string]toml.Primitive) (cost.Prices, error) {
	prices := cost.Prices{}
	for model, prim := range tables {
		var raw map[string]any
		if err := md.PrimitiveDecode(prim, &raw); err != nil {
			return nil, fmt.Errorf("[pricing.%q]: expected a table of prices", model)
		}
		var p cost.Price
		fields := map[string]*float64{"input": &p.Input, "output": &p.Output, "cache_read": &p.CacheRead, "cache_write": &p.CacheWrite}
		for key, v := range raw {
			dst, known := fields[key]
			if !known {
				return nil, fmt.Errorf("[pricing.%q]: unknown key %q (known: input, output, cache_read, cache_write)", model, key)
			}
			n, ok := number(v)
			if !ok || n < 0 {
				return nil, fmt.Errorf("[pricing.%q]: %s: expected US dollars per million tokens, got %s", model, key, tomlText(v))
			}
			*dst = n
		}
		prices[model] = p
	}
	return prices, nil
}

// number accepts a TOML integer or float.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// stringList accepts an array of strings (a single string too, as a list of one).
func stringList(v any) ([]string, bool) {
	switch v := v.(type) {
	case string:
		return []string{v}, true
	case []any:
		out := make([]string, 0, len(v))
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// LoopFlags are the loop settings given on the command line; nil and empty mean not given.
type LoopFlags struct {
	Checks           []string // as given; script paths relative to Base
	Base             string   // the directory the command was run in
	Hooks            []Hook
	StagnationLimit  *int
	NoBuiltinMarkers bool
	CheckTimeout     *int
	HookTimeout      *int
	MaxCost          *float64
	Notify           []string // --notify values, in order
}

// LoopSettings are a new loop's checkers, hooks and stop rules.
type LoopSettings struct {
	Checks          []string // checker specs, script paths absolute
	Hooks           []Hook
	StagnationLimit int
	BuiltinMarkers  bool
	CheckTimeout    int // seconds
	HookTimeout     int
	MaxCost         float64     // USD; 0: no budget
	Pricing         cost.Prices // the project's price overrides
	Notify          NotifyConfig
}

// ResolveLoop is the loop settings for a loop started in dir: the defaults, overridden by the
// [loop] tables of the user's config.toml and of the swarm.toml found from dir upwards (see
// ConfigFiles), overridden by the flags given. A list given as flags replaces the files' (hooks
// per type).
func ResolveLoop(dir string, f LoopFlags) (LoopSettings, error) {
	ls := LoopSettings{StagnationLimit: DefaultStagnationLimit, BuiltinMarkers: true,
		CheckTimeout: int(DefaultCheckTimeout.Seconds()), HookTimeout: int(DefaultHookTimeout.Seconds())}
	lf, checks, err := loopFromFiles(dir)
	if err != nil {
		return LoopSettings{}, err
	}
	ls.Checks = checks
	override(&ls.StagnationLimit, lf.StagnationLimit)
	override(&ls.BuiltinMarkers, lf.BuiltinMarkers)
	override(&ls.CheckTimeout, lf.CheckTimeout)
	override(&ls.HookTimeout, lf.HookTimeout)
	override(&ls.StagnationLimit, f.StagnationLimit)
	override(&ls.CheckTimeout, f.CheckTimeout)
	override(&ls.HookTimeout, f.HookTimeout)
	override(&ls.MaxCost, lf.MaxCost)
	override(&ls.MaxCost, f.MaxCost)
	if len(lf.Pricing) > 0 {
		ls.Pricing = lf.Pricing
	}
	if f.NoBuiltinMarkers {
		ls.BuiltinMarkers = false
	}
	if len(f.Checks) > 0 {
		ls.Checks = nil
		for _, s := range f.Checks {
			c, err := ParseCheck(s, f.Base)
			if err != nil {
				return LoopSettings{}, err
			}
			ls.Checks = append(ls.Checks, c.Spec)
		}
	}
	ls.Hooks = mergeHooks(lf.Hooks, f.Hooks)
	if ls.Notify, err = ResolveNotify(dir, f.Notify); err != nil {
		return LoopSettings{}, err
	}
	return ls, nil
}

// loopFromFiles is the [loop] settings of the config files that apply in dir (ConfigFiles),
// a later file's overriding an earlier one's setting by setting (a list of checks as a whole,
// hooks per type, prices per model), with each file's checker scripts found from its own
// directory.
func loopFromFiles(dir string) (*LoopFile, []string, error) {
	merged := &LoopFile{Hooks: map[string][]string{}}
	var checks []string
	for _, path := range ConfigFiles(dir) {
		lf, err := ParseLoopConfig(path)
		if err != nil {
			return nil, nil, err
		}
		if lf.ChecksSet {
			checks = nil
			for _, s := range lf.Checks {
				c, _ := ParseCheck(s, filepath.Dir(path))
				checks = append(checks, c.Spec)
			}
		}
		keep(&merged.StagnationLimit, lf.StagnationLimit)
		keep(&merged.BuiltinMarkers, lf.BuiltinMarkers)
		keep(&merged.CheckTimeout, lf.CheckTimeout)
		keep(&merged.HookTimeout, lf.HookTimeout)
		keep(&merged.MaxCost, lf.MaxCost)
		for typ, hooks := range lf.Hooks {
			merged.Hooks[typ] = hooks
		}
		for model, p := range lf.Pricing {
			if merged.Pricing == nil {
				merged.Pricing = cost.Prices{}
			}
			merged.Pricing[model] = p
		}
	}
	return merged, checks, nil
}

// keep sets *dst to src when src is set.
func keep[T any](dst **T, src *T) {
	if src != nil {
		*dst = src
	}
}

// mergeHooks puts the file's hooks and the flags' together, in the order of a loop's life; the
// flags of a type replace the file's of that type.
func mergeHooks(file map[string][]string, flags []Hook) []Hook {
	var out []Hook
	for _, typ := range HookTypes {
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
			out = append(out, Hook{Type: typ, Command: cmd})
		}
	}
	return out
}
