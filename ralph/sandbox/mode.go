package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Mode is what the user asked of the sandbox.
type Mode string

// The modes. Auto confines an agent whose command skips its own permission prompts, where
// the machine can; On confines every agent where the machine can, and says when it cannot;
// Required refuses to start an agent it cannot confine; Off never confines.
const (
	Auto     Mode = "auto"
	On       Mode = "on"
	Required Mode = "required"
	Off      Mode = "off"
)

// ParseMode reads --sandbox's value ("" is auto: the flag's default, no flag given).
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return Auto, nil
	case Auto, On, Required, Off:
		return m, nil
	case "true", "yes", "bwrap":
		return On, nil
	case "false", "no", "none":
		return Off, nil
	}
	return "", fmt.Errorf("--sandbox must be auto, on, required or off (got %q)", s)
}

// Decision is whether one agent runs confined, and what to say about it.
type Decision struct {
	Confine bool
	// Refuse is set when the agent must not start: required, and the machine cannot.
	Refuse string
	// Unsandboxed is set when the agent should have been confined and will not be: why, and
	// what fixes it, for the one line spawn says and the record's mark.
	Unsandboxed string
}

// Decide is the sandbox for an agent started with argv in mode m, on a machine whose probe
// said unsupported ("" when bubblewrap works).
func Decide(m Mode, argv []string, unsupported string) Decision {
	want := m == On || m == Required || m == Auto && SkipsPermissions(argv)
	switch {
	case !want:
		return Decision{}
	case unsupported == "":
		return Decision{Confine: true}
	case m == Required:
		return Decision{Refuse: "sandbox required but unavailable: " + unsupported}
	}
	return Decision{Unsandboxed: unsupported}
}

// skipFlags are the flags by which each agent runs without asking before it acts.
var skipFlags = map[string][]string{
	"claude":   {"--dangerously-skip-permissions", "--permission-mode=bypassPermissions", "--allow-dangerously-skip-permissions"},
	"codex":    {"--dangerously-bypass-approvals-and-sandbox", "--yolo", "--full-auto", "--ask-for-approval=never", "-a=never"},
	"gemini":   {"--yolo", "-y", "--approval-mode=yolo"},
	"qwen":     {"--yolo", "-y", "--approval-mode=yolo"},
	"copilot":  {"--allow-all-tools", "--allow-all", "--yolo"},
	"crush":    {"--yolo", "-y"},
	"opencode": {"--dangerously-skip-permissions"},
}

// SkipsPermissions reports whether argv runs a known agent without its permission prompts.
// Flags are compared whole, "--flag value" read as "--flag=value".
func SkipsPermissions(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	flags, ok := skipFlags[filepath.Base(argv[0])]
	if !ok {
		return false
	}
	for i, a := range argv[1:] {
		if slices.Contains(flags, a) {
			return true
		}
		if next := i + 2; next < len(argv) && !strings.Contains(a, "=") && slices.Contains(flags, a+"="+argv[next]) {
			return true
		}
	}
	return false
}
