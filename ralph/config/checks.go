package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Completion checkers, as --check and the checks of [loop] and [agents.NAME] give them: what
// a checker is and how its spec reads. The loop runs them.

// Checker kinds.
const (
	CheckCommand  = "command"   // command:CMD, sh -c CMD passes on exit 0
	CheckFile     = "file"      // file:PATH exists
	CheckMarker   = "marker"    // marker:RE in the iteration's output
	CheckExitCode = "exit-code" // the agent exited 0
	CheckScript   = "script"    // an executable, given the iteration in its environment
)

// Check is one parsed --check.
type Check struct {
	Spec string // as given (a script's path made absolute): how messages name it
	Kind string
	Arg  string // the command, path or pattern
}

// ParseCheck reads a --check value. A relative script path is resolved against dir, the
// directory the loop was started from.
func ParseCheck(spec, dir string) (Check, error) {
	kind, arg, _ := strings.Cut(spec, ":")
	switch kind {
	case CheckCommand, CheckFile, CheckMarker:
		if strings.TrimSpace(arg) == "" {
			return Check{}, fmt.Errorf("invalid --check '%s': %s: needs a value after the colon", spec, kind)
		}
		if kind == CheckMarker {
			if _, err := regexp.Compile(arg); err != nil {
				return Check{}, fmt.Errorf("invalid --check '%s': %w", spec, err)
			}
		}
		return Check{Spec: spec, Kind: kind, Arg: arg}, nil
	case CheckExitCode:
		if arg != "" || strings.Contains(spec, ":") {
			return Check{}, fmt.Errorf("invalid --check '%s': exit-code takes no value", spec)
		}
		return Check{Spec: spec, Kind: CheckExitCode}, nil
	}
	return parseScriptCheck(spec, dir)
}

// parseScriptCheck accepts a path to an executable file.
func parseScriptCheck(spec, dir string) (Check, error) {
	path := spec
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() {
		return Check{}, fmt.Errorf("invalid --check '%s': not command:CMD, file:PATH, marker:RE, exit-code, or an executable file", spec)
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return Check{}, fmt.Errorf("invalid --check '%s': the file is not executable (chmod +x %s)", spec, spec)
	}
	return Check{Spec: path, Kind: CheckScript, Arg: path}, nil
}
