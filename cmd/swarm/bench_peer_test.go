package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The Python original as a reference: SWARM_PEER names its swarm.py, and the idle-loop
// benchmark runs one idle loop of it beside swarm's own, with the same demo agent, over the
// same window. Its tmux server is its own (TMUX_TMPDIR in a temporary directory), so it never
// meets the user's.
type benchPeer struct {
	b      *testing.B
	work   string
	env    []string
	script string
}

// newBenchPeer prepares the peer, or returns nil when SWARM_PEER is not set.
func newBenchPeer(b *testing.B) *benchPeer {
	src := os.Getenv("SWARM_PEER")
	if src == "" {
		return nil
	}
	if _, err := exec.LookPath("python3"); err != nil {
		b.Fatal("SWARM_PEER is set but python3 is not installed")
	}
	root := b.TempDir()
	p := &benchPeer{b: b, work: filepath.Join(root, "work")}
	for _, d := range []string{p.work, filepath.Join(root, "home"), filepath.Join(root, "tmux")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatalf("SWARM_PEER: %v", err)
	}
	// It starts its monitor as swarm.py of the current directory.
	p.script = filepath.Join(p.work, "swarm.py")
	if err := os.WriteFile(p.script, data, 0o700); err != nil {
		b.Fatal(err)
	}
	p.env = benchEnv("SWARM_DIR="+filepath.Join(root, "state"), "HOME="+filepath.Join(root, "home"),
		"TMUX_TMPDIR="+filepath.Join(root, "tmux"))
	b.Cleanup(p.stop)
	return p
}

func (p *benchPeer) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir = p.env, p.work
	return cmd
}

// startIdleLoop starts one loop of the peer on agent and returns its monitor's pid and its
// tmux server's, once the agent has answered its prompt.
func (p *benchPeer) startIdleLoop(agent ...string) (monitor, server int) {
	if err := os.WriteFile(filepath.Join(p.work, "IDLE.md"), []byte("@say idle\n"), 0o600); err != nil {
		p.b.Fatal(err)
	}
	args := append([]string{p.script, "ralph", "spawn", "--name", "idle", "--no-worktree", "--prompt-file", "IDLE.md",
		// With one iteration it would end its loop at the first look; with more, the first
		// iteration idles for good.
		"--max-iterations", "5", "--inactivity-timeout", "100000", "--"}, agent...)
	if out, err := p.command("python3", args...).CombinedOutput(); err != nil {
		p.b.Fatalf("peer ralph spawn: %v\n%s", err, out)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		monitor = p.monitorPID()
		if monitor > 0 && p.agentAnswered() {
			break
		}
		if time.Now().After(deadline) {
			p.b.Fatalf("peer: no monitor (pid %d) or no answer from its agent after 30 s", monitor)
		}
		time.Sleep(100 * time.Millisecond)
	}
	out, err := p.command("tmux", "display", "-p", "#{pid}").Output()
	if server, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
		p.b.Fatalf("peer tmux server pid %q: %v", out, err)
	}
	return monitor, server
}

// monitorPID finds the peer's `swarm.py ralph run` process.
func (p *benchPeer) monitorPID() int {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		raw, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && bytes.Contains(raw, []byte(p.script+"\x00ralph\x00run\x00")) {
			pid, _ := strconv.Atoi(filepath.Base(d))
			return pid
		}
	}
	return 0
}

func (p *benchPeer) agentAnswered() bool {
	panes, err := p.command("tmux", "list-panes", "-a", "-F", "#{pane_id}").Output()
	if err != nil {
		return false
	}
	for _, id := range strings.Fields(string(panes)) {
		if out, err := p.command("tmux", "capture-pane", "-p", "-t", id).Output(); err == nil && bytes.Contains(out, []byte("● idle")) {
			return true
		}
	}
	return false
}

// stop ends the peer's loop, its monitor and its tmux server.
func (p *benchPeer) stop() {
	_ = p.command("python3", p.script, "kill", "--all").Run()
	if pid := p.monitorPID(); pid > 0 {
		if proc, err := os.FindProcess(pid); err == nil {
			_ = proc.Kill()
		}
	}
	_ = p.command("tmux", "kill-server").Run()
}
