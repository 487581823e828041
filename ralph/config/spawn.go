package config

import (
	"fmt"
	"strings"
)

// The [spawn] table: the agent command a spawn runs when none is given after "--", so that a
// user who always runs the same agent types `swarm spawn --name w1 --tmux`.

// SpawnCommand is the [spawn] command of the files (the last file's that sets one), nil
// when none sets one.
func (c *Config) SpawnCommand() ([]string, error) {
	var cmd []string
	for _, f := range c.files {
		found, err := f.spawnCommand()
		if err != nil {
			return nil, err
		}
		if found != nil {
			cmd = found
		}
	}
	return cmd, nil
}

// spawnCommand reads the file's [spawn] table: command is an array of strings (the program
// and its arguments) or one string of words separated by spaces.
func (f *file) spawnCommand() ([]string, error) {
	if f.err != nil {
		return nil, f.err
	}
	var table map[string]any
	if err := f.table("spawn", &table); err != nil {
		return nil, err
	}
	if err := f.allows("[spawn]"); err != nil {
		return nil, err
	}
	path := f.path
	var cmd []string
	for key, v := range table {
		if key != "command" {
			return nil, fmt.Errorf("%s: [spawn]: unknown key %q (known: command)", path, key)
		}
		switch c := v.(type) {
		case string:
			cmd = strings.Fields(c)
		case []any:
			for _, a := range c {
				s, ok := a.(string)
				if !ok {
					return nil, fmt.Errorf("%s: [spawn]: command: expected strings, got %v", path, a)
				}
				cmd = append(cmd, s)
			}
		default:
			return nil, fmt.Errorf("%s: [spawn]: command: expected an array of strings or a string, got %v", path, v)
		}
		if len(cmd) == 0 {
			return nil, fmt.Errorf("%s: [spawn]: command is empty", path)
		}
	}
	return cmd, nil
}
