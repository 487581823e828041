package config

import (
	"fmt"
	"slices"
	"strings"
)

// The [sandbox] table: how workers' agents are confined when spawn is given no --sandbox or
// --sandbox-net. The user's own file may say anything; a project's file may only confine
// more (mode on or required, net none or allow): a repository someone else wrote never
// turns the sandbox off or opens its network.

// SandboxSettings are the [sandbox] settings that apply ("" where none is set), and what was
// set but not taken, to be said.
type SandboxSettings struct {
	Mode     string
	Net      string
	Warnings []string
}

var (
	sandboxModes = []string{"auto", "on", "required", "off"}
	tighterModes = []string{"on", "required"}
)

// Sandbox reads the [sandbox] tables of the files, the last that sets a key winning.
func (c *Config) Sandbox() (SandboxSettings, error) {
	var s SandboxSettings
	for _, f := range c.files {
		if f.err != nil {
			return s, f.err
		}
		var table map[string]any
		if err := f.table("sandbox", &table); err != nil {
			return s, err
		}
		if err := f.sandboxInto(table, &s); err != nil {
			return s, err
		}
	}
	return s, nil
}

func (f *file) sandboxInto(table map[string]any, s *SandboxSettings) error {
	own := f.path == UserConfigPath()
	for key, v := range table {
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: [sandbox]: %s: expected a string, got %v", f.path, key, v)
		}
		str = strings.ToLower(strings.TrimSpace(str))
		switch key {
		case "mode":
			if !slices.Contains(sandboxModes, str) {
				return fmt.Errorf("%s: [sandbox]: mode must be auto, on, required or off (got %q)", f.path, str)
			}
			if !own && !slices.Contains(tighterModes, str) {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: [sandbox] mode = %q not taken: a project's file may only confine more (on, required)", f.path, str))
				continue
			}
			s.Mode = str
		case "net":
			if !own && (str == "" || str == "open") {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: [sandbox] net = %q not taken: a project's file may only confine more (none, allow=...)", f.path, str))
				continue
			}
			s.Net = str
		default:
			return fmt.Errorf("%s: [sandbox]: unknown key %q (known: mode, net)", f.path, key)
		}
	}
	return nil
}
