package ralph

import (
	"fmt"
	"os"
	"strings"

	"github.com/BurntSushi/toml"
)

// The [spawn] table: the agent command a spawn runs when none is given after "--", so that a
// user who always runs the same agent types `swarm spawn --name w1 --tmux`.

// DefaultCommand is the [spawn] command of the config files that apply in dir (ConfigFiles;
// the project's wins), nil when none sets one.
func DefaultCommand(dir string) ([]string, error) {
	var cmd []string
	for _, path := range ConfigFiles(dir) {
		found, err := spawnCommand(path)
		if err != nil {
			return nil, err
		}
		if found != nil {
			cmd = found
		}
	}
	return cmd, nil
}

// spawnCommand reads the [spawn] table of one file: command is an array of strings (the
// program and its arguments) or one string of words separated by spaces.
func spawnCommand(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Spawn map[string]any `toml:"spawn"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return nil, tomlError(path, data, err)
	}
	if err := checkConsent(path, data, "[spawn]"); err != nil {
		return nil, err
	}
	var cmd []string
	for key, v := range doc.Spawn {
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
