package sandbox

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"time"
)

// probe starts a sandbox like an agent's, running true, and reads why it failed.
func probe() string {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return "bubblewrap is not installed (apt-get install bubblewrap, or dnf install bubblewrap)"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-net",
		"--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "/bin/true")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return probeFailure(strings.TrimSpace(stderr.String()), err)
	}
	return ""
}

// probeFailure is why bubblewrap failed, in words that say what to do.
func probeFailure(said string, err error) string {
	switch {
	case strings.Contains(said, "No permissions to create") || strings.Contains(said, "Operation not permitted") ||
		strings.Contains(said, "setting up uid map"):
		return "bubblewrap cannot create namespaces here: user namespaces are off " +
			"(sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0): " + firstLine(said)
	case said != "":
		return "bubblewrap fails here: " + firstLine(said)
	}
	return "bubblewrap fails here: " + err.Error()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 200 {
		line = line[:200]
	}
	return line
}
