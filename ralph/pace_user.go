package ralph

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/swarm-dev/swarm/ralph/cost"
)

// The user's own status line, which swarm's runs after recording the pace. Claude Code takes
// the statusLine of the settings with the highest precedence that sets one: the project's
// local settings, then the project's, then the user's; swarm's settings file, given with
// --settings, is above them all, so theirs is looked up here and run by swarm's.

// settingsFileMax bounds a settings file read for its status line: settings are kilobytes.
const settingsFileMax = 1 << 20

// StatusLineInput is what swarm's status line reads of its input beyond the figures: the
// project's directory, whose settings may hold the user's status line.
type StatusLineInput struct {
	Cwd       string `json:"cwd"`
	Workspace struct {
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
}

// ProjectDir is the session's project directory, as the input names it.
func (in StatusLineInput) ProjectDir() string { return FirstOf(in.Workspace.ProjectDir, in.Cwd) }

// UserStatusLine is the status line command the user's or the project's settings give Claude
// Code ("" when none does), read in the agent's environment (getenv: CLAUDE_CONFIG_DIR, HOME)
// for the project at dir. swarm's own (a command that records the pace) is never taken.
func UserStatusLine(getenv func(string) string, dir string) string {
	var files []string
	if dir != "" {
		files = append(files, filepath.Join(dir, ".claude", "settings.local.json"), filepath.Join(dir, ".claude", "settings.json"))
	}
	if conf := cost.ClaudeConfigDir(getenv); conf != "" {
		files = append(files, filepath.Join(conf, "settings.json"))
	}
	for _, f := range files {
		var doc struct {
			StatusLine *struct {
				Type    string `json:"type"`
				Command string `json:"command"`
			} `json:"statusLine"`
		}
		if readSettings(f, &doc) != nil || doc.StatusLine == nil {
			continue
		}
		c := doc.StatusLine.Command
		if doc.StatusLine.Type != "command" || strings.TrimSpace(c) == "" || isPaceRecorder(c) {
			continue
		}
		return c
	}
	return ""
}

// isPaceRecorder reports whether a status line command is swarm's own.
func isPaceRecorder(command string) bool {
	return strings.Contains(command, "agent-event") && strings.Contains(command, "--status-line")
}

// readSettings decodes at most settingsFileMax bytes of the JSON settings file at path.
func readSettings(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, settingsFileMax))
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}
