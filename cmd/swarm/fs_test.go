package main

import (
	"github.com/swarm-dev/swarm/swarm/serve/web/webtest"

	"github.com/swarm-dev/swarm/ralph/sandbox"

	"fmt"
	"os"
	"os/exec"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// A small file system of its own lets a script fill the disk under swarm's state directory.
// Mounting one needs root; scripts that need it say [mount] and are skipped elsewhere.

var (
	mountOnce sync.Once
	canMount  bool
)

// scriptCondition answers the scripts' own conditions: [mount], [seconduser], [sshd], [netns].
func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "seconduser":
		return canAddUser(), nil
	case "sshd":
		return haveSSHD(), nil
	case "netns":
		return canNetns(), nil
	case "browser":
		// Under CI chromium is installed: a script that needs it fails there without it.
		_, err := webtest.Find()
		return os.Getenv("CI") != "" || err == nil, nil
	case "bwrap":
		// Under CI bubblewrap is installed: a script that needs it fails there without it.
		return os.Getenv("CI") != "" || sandbox.Probe() == "", nil
	}
	if cond != "mount" {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	mountOnce.Do(func() {
		dir, err := os.MkdirTemp("", "swarm-mount-probe")
		if err != nil {
			return
		}
		defer os.RemoveAll(dir)
		if exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).Run() == nil {
			canMount = exec.Command("umount", dir).Run() == nil
		}
	})
	return canMount, nil
}

func cmdTmpfs(ts *testscript.TestScript, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: tmpfs DIR SIZE")
	}
	dir := ts.MkAbs(args[0])
	if err := os.MkdirAll(dir, 0o700); err != nil {
		ts.Fatalf("%v", err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+args[1], "tmpfs", dir).CombinedOutput(); err != nil {
		ts.Fatalf("mount: %v: %s", err, out)
	}
	// Lazily: processes of the script may still hold files there for a moment.
	ts.Defer(func() { _ = exec.Command("umount", "-l", dir).Run() })
}
