package sandbox

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"strings"
	"time"
)

// probe starts a sandbox like an agent's, running true, and reads why it failed.
func probe() Support {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return Support{Namespaces: NamespacesUnknown, Why: "bubblewrap is not installed", Fix: "apt-get install bubblewrap, or dnf install bubblewrap"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-net",
		"--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "/bin/true")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		s := probeFailure(strings.TrimSpace(stderr.String()), err)
		s.Bwrap = bwrap
		return s
	}
	return Support{Bwrap: bwrap, Namespaces: NamespacesUsable}
}

// probeFailure is why bubblewrap failed, in words that say what to do.
func probeFailure(said string, err error) Support {
	switch {
	case strings.Contains(said, "No permissions to create") || strings.Contains(said, "Operation not permitted") ||
		strings.Contains(said, "setting up uid map"):
		return Support{Namespaces: NamespacesOff, Why: "bubblewrap cannot create namespaces here: user namespaces are off",
			Fix:  "sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0",
			Said: firstLine(said)}
	case said != "":
		return Support{Namespaces: NamespacesUnknown, Why: "bubblewrap fails here", Said: firstLine(said)}
	}
	return Support{Namespaces: NamespacesUnknown, Why: "bubblewrap fails here", Said: err.Error()}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 200 {
		line = line[:200]
	}
	return line
}

// Version is what bubblewrap at path says its version is ("0.8.0"), "" when it does not say.
func Version(path string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return ""
	}
	if err := cmd.Start(); err != nil {
		return ""
	}
	said, _ := io.ReadAll(io.LimitReader(out, 256))
	_ = cmd.Wait()
	return versionOf(string(said))
}
