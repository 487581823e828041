package config

import (
	"fmt"
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
	// LimitHeadroom is the share of the 5-hour limit kept in hand (percent; 0: none);
	// OnDangerous what a loop answers a command its agent's skipped permissions still ask for.
	LimitHeadroom *int
	OnDangerous   *string
}

// What a loop does when its agent asks to run a command that skipping permissions does not
// skip: leave it to a person, or answer no.
const (
	DangerousAsk = "ask"
	DangerousNo  = "no"
)

// MaxLimitHeadroom bounds limit_headroom and --limit-headroom (percent of the 5-hour limit).
const MaxLimitHeadroom = 99

// loopKeys are the settings of [loop], each with what a good value looks like.
var loopKeys = map[string]string{
	"checks":           "an array of checker strings",
	"stagnation_limit": "a non-negative integer",
	"builtin_markers":  "true or false",
	"check_timeout":    "a positive number of seconds",
	"hook_timeout":     "a positive number of seconds",
	"hooks":            "a table of hook lists",
	"max_cost":         "a non-negative number of US dollars",
	"limit_headroom":   "a percentage from 0 (none) to 99",
	"on_dangerous":     `"ask" or "no"`,
}

// loop reads the file's [loop] table and its [pricing."model"] tables. Unknown keys, bad
// checkers and hook types, and values of the wrong type are errors naming the file and line.
func (f *file) loop() (*LoopFile, error) {
	if f.err != nil {
		return nil, f.err
	}
	var pricing map[string]toml.Primitive
	if err := f.table("pricing", &pricing); err != nil {
		return nil, err
	}
	lf := &LoopFile{Hooks: map[string][]string{}}
	var err error
	if lf.Pricing, err = parsePricing(f.md, pricing); err != nil {
		return nil, tomlError(f.path, f.data, err)
	}
	if !f.md.IsDefined("loop") {
		return lf, nil
	}
	var table map[string]toml.Primitive
	if err := f.md.PrimitiveDecode(f.tables["loop"], &table); err != nil {
		return nil, tomlError(f.path, f.data, fmt.Errorf("loop: expected a table ([loop])"))
	}
	for _, k := range f.md.Keys() {
		if len(k) < 2 || k[0] != "loop" {
			continue
		}
		if err := f.loopKey(lf, table, k); err != nil {
			return nil, tomlError(f.path, f.data, err)
		}
	}
	// Asked once the file is known to be right, so a mistake in it is reported first.
	if err := f.allows("[loop"); err != nil {
		return nil, err
	}
	return lf, nil
}

// loopKey decodes the key k of [loop] (or of [loop.hooks]) of table into lf.
func (f *file) loopKey(lf *LoopFile, table map[string]toml.Primitive, k toml.Key) error {
	lk := loopKey{path: k[1:], lf: lf, dir: filepath.Dir(f.path)}
	switch {
	case len(k) == 2:
		return f.md.PrimitiveDecode(table[k[1]], lk)
	case len(k) == 3 && k[1] == "hooks":
		var hooks map[string]toml.Primitive
		if err := f.md.PrimitiveDecode(table["hooks"], &hooks); err != nil {
			return err
		}
		return f.md.PrimitiveDecode(hooks[k[2]], lk)
	}
	return nil
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
	case "limit_headroom":
		if err = setCount(&k.lf.LimitHeadroom, v, 0); err == nil && *k.lf.LimitHeadroom > MaxLimitHeadroom {
			err = errWrongValue
		}
	case "on_dangerous":
		if s, ok := v.(string); ok && (s == DangerousAsk || s == DangerousNo) {
			k.lf.OnDangerous = &s
		} else {
			err = errWrongValue
		}
	}
	if err == errWrongValue {
		return fmt.Errorf("%s: expected %s, got %s", name, want, tomlText(v))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
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

// Loop is the [loop] and [pricing] tables of the files, a later file's overriding an earlier
// one's setting by setting (a list of checks as a whole, hooks per type, prices per model),
// with each file's checker scripts found from its own directory (Checks holds them made
// absolute).
func (c *Config) Loop() (LoopFile, error) {
	merged := LoopFile{Hooks: map[string][]string{}}
	for _, f := range c.files {
		lf, err := f.loop()
		if err != nil {
			return LoopFile{}, err
		}
		if lf.ChecksSet {
			merged.Checks, merged.ChecksSet = nil, true
			for _, s := range lf.Checks {
				check, _ := ParseCheck(s, filepath.Dir(f.path))
				merged.Checks = append(merged.Checks, check.Spec)
			}
		}
		keep(&merged.StagnationLimit, lf.StagnationLimit)
		keep(&merged.BuiltinMarkers, lf.BuiltinMarkers)
		keep(&merged.CheckTimeout, lf.CheckTimeout)
		keep(&merged.HookTimeout, lf.HookTimeout)
		keep(&merged.MaxCost, lf.MaxCost)
		keep(&merged.LimitHeadroom, lf.LimitHeadroom)
		keep(&merged.OnDangerous, lf.OnDangerous)
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
	return merged, nil
}

// keep sets *dst to src when src is set.
func keep[T any](dst **T, src *T) {
	if src != nil {
		*dst = src
	}
}
