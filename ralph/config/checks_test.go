package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseCheck(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "verify.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "plain.txt"), []byte("x"), 0o644)
	good := map[string]Check{
		"command:go test ./...": {Spec: "command:go test ./...", Kind: CheckCommand, Arg: "go test ./..."},
		"file:DONE.md":          {Spec: "file:DONE.md", Kind: CheckFile, Arg: "DONE.md"},
		"marker:ALL (DONE|OK)":  {Spec: "marker:ALL (DONE|OK)", Kind: CheckMarker, Arg: "ALL (DONE|OK)"},
		"exit-code":             {Spec: "exit-code", Kind: CheckExitCode},
		"./verify.sh":           {Spec: script, Kind: CheckScript, Arg: script},
		script:                  {Spec: script, Kind: CheckScript, Arg: script},
	}
	for spec, want := range good {
		got, err := ParseCheck(spec, dir)
		if err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", spec, got, err, want)
		}
	}
	bad := map[string]string{
		"command:":       "command: needs a value after the colon",
		"marker:(":       "error parsing regexp",
		"exit-code:0":    "exit-code takes no value",
		"./missing.sh":   "not command:CMD, file:PATH, marker:RE, exit-code, or an executable file",
		"plain.txt":      "the file is not executable (chmod +x plain.txt)",
		"comand:go test": "not command:CMD",
	}
	for spec, msg := range bad {
		if _, err := ParseCheck(spec, dir); err == nil || !strings.Contains(err.Error(), msg) || !strings.HasPrefix(err.Error(), "invalid --check '"+spec+"'") {
			t.Errorf("%q: %v, want an error saying %q", spec, err, msg)
		}
	}
}
