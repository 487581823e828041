package driver

import (
	"os"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/state"
)

// Watching a loop's files: the kernel (inotify) tells the loop when a file in its directory or
// in the shared limits directory is written, made or removed: a command that paused, resumed
// or killed it, a DONE file, a damaged state file, another loop's usage limit. The loop reads
// its files then instead of polling them often; StatusPoll remains as the safety net. Where the
// kernel cannot tell, the files are read every fallbackStatusPoll at least.

// fileWatch is the kernel's watch of a loop's directories (state.WatchKernel; where the
// kernel cannot tell, there is none and the loop reads its files every fallbackStatusPoll).
type fileWatch struct{ w *state.Watch }

// watchFiles starts watching dirs for what is not the loop's own writing; nil when the
// system cannot. On a full disk every write the loop tries (and fails) makes events; were
// they to wake it, its pause between retries would end at once, and it would spin.
func watchFiles(dirs ...string) *fileWatch {
	w := state.WatchKernel(dirs, func(name string) bool { return !ownWrite(name) })
	if w == nil {
		return nil
	}
	return &fileWatch{w: w}
}

// ownWrite reports whether a file of that name in the loop's directory changes only by the
// loop's own writing: its logs (and their rotated copies), and the temporary files an
// atomic write makes before it renames them into place (the rename itself is told).
func ownWrite(name string) bool {
	if strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-") {
		return true
	}
	base, _ := strings.CutSuffix(name, ".1")
	return base == "monitor.log" || base == "iterations.log" || base == "iterations.jsonl"
}

// changed yields when the files changed; never for no watch.
func (fw *fileWatch) changed() <-chan struct{} {
	if fw == nil {
		return nil
	}
	return fw.w.Changed()
}

func (fw *fileWatch) close() {
	if fw != nil {
		fw.w.Close()
	}
}

// fallbackStatusPoll is how often a loop whose files are not watched reads them at least.
const fallbackStatusPoll = 5 * time.Second

// watchOwnFiles starts the loop's file watch: its directory, its box (where the agent's
// signals and DONE file come) and the limits directory, made for it.
func (l *Loop) watchOwnFiles() *fileWatch {
	_ = os.MkdirAll(limitsDir(l.cfg.Workers.Root), 0o700)
	_ = os.MkdirAll(l.cfg.Dir.AgentBox(), 0o700)
	return watchFiles(l.cfg.Dir.Path, l.cfg.Dir.AgentBox(), limitsDir(l.cfg.Workers.Root))
}

// statusPoll is how often the loop reads its files when nothing told it they changed.
func (l *Loop) statusPoll() time.Duration {
	if l.files == nil {
		return min(l.cfg.StatusPoll, fallbackStatusPoll)
	}
	return l.cfg.StatusPoll
}
