package config

import (
	"os"
	"path/filepath"
)

// The user's own defaults: the same tables as a project's swarm.toml ([regent], [loop],
// [pricing], [agents.NAME], [spawn]) in $XDG_CONFIG_HOME/swarm/config.toml
// (~/.config/swarm/config.toml), for every project. A project's swarm.toml overrides them
// setting by setting, and flags override both.

// UserConfigPath is where the user's defaults are read from ("" without a home directory).
func UserConfigPath() string { return userConfigFile("config.toml") }

// UserTmuxConfigPath is the user's own lines for swarm's tmux server (prefix, keys, colours),
// read after swarm's when the server starts ("" without a home directory).
func UserTmuxConfigPath() string { return userConfigFile("tmux.conf") }

// userConfigFile is a file of $XDG_CONFIG_HOME/swarm (~/.config/swarm). Not os.UserConfigDir:
// on macOS that is ~/Library/Application Support, and command-line tools' users look in
// ~/.config there too.
func userConfigFile(name string) string {
	if dir := os.Getenv("XDG_CONFIG_HOME"); dir != "" && filepath.IsAbs(dir) {
		return filepath.Join(dir, "swarm", name)
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "swarm", name)
}

// ProjectConfigName is a project's own configuration file.
const ProjectConfigName = "swarm.toml"

// FindProjectConfig looks for swarm.toml in dir and its parents up to the repository root (the
// first directory holding .git) or the filesystem root.
func FindProjectConfig(dir string) string {
	for {
		p := filepath.Join(dir, ProjectConfigName)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Paths are the files whose settings apply to a loop or worker started in dir, in the
// order they apply (a later one overrides an earlier one): the user's config.toml, then the
// swarm.toml found from dir upwards, each when it exists.
func Paths(dir string) []string {
	var out []string
	if p := UserConfigPath(); p != "" {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	if p := FindProjectConfig(dir); p != "" {
		out = append(out, p)
	}
	return out
}
