package state

import (
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Watching files: a command that waits for something to change in the state directory (an
// event appended, a loop's state rewritten, a worker's exit recorded) is told by the kernel
// when a file it cares about is written, made, moved or removed, and costs nothing while
// nothing happens. Where the kernel cannot tell (another system, no inotify instance left),
// the directories are looked at every PollEvery instead: a stat of the files cared about.

// PollEvery is how often the files are looked at where the kernel does not tell of changes.
const PollEvery = time.Second

// Watch tells of changes to the files of some directories.
type Watch struct {
	wake   chan struct{} // one pending wake-up: something changed since the last
	stop   func()
	kernel bool
}

// WatchFiles watches the files of dirs whose names wants takes (all, when nil). A directory
// that does not exist is looked for again at every poll.
func WatchFiles(dirs []string, wants func(name string) bool) *Watch {
	if wants == nil {
		wants = func(string) bool { return true }
	}
	w := &Watch{wake: make(chan struct{}, 1)}
	if stop, ok := watchKernel(dirs, wants, w.notify); ok {
		w.stop, w.kernel = stop, true
		return w
	}
	w.stop = pollFiles(dirs, wants, PollEvery, w.notify)
	return w
}

// WatchKernel is WatchFiles where the kernel tells of changes, nil elsewhere: for a reader
// that has a slower look of its own to fall back on.
func WatchKernel(dirs []string, wants func(name string) bool) *Watch {
	w := &Watch{wake: make(chan struct{}, 1), kernel: true}
	stop, ok := watchKernel(dirs, wants, w.notify)
	if !ok {
		return nil
	}
	w.stop = stop
	return w
}

// Changed yields once something changed since it last yielded.
func (w *Watch) Changed() <-chan struct{} { return w.wake }

// Kernel reports whether the kernel tells of the changes (false: they are polled for).
func (w *Watch) Kernel() bool { return w.kernel }

// Close ends the watch.
func (w *Watch) Close() { w.stop() }

func (w *Watch) notify() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// pollFiles looks at the files every interval and calls changed when they differ from the
// last look; it returns the function that stops it.
func pollFiles(dirs []string, wants func(string) bool, every time.Duration, changed func()) func() {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		last := lookAt(dirs, wants)
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if now := lookAt(dirs, wants); !slices.Equal(now, last) {
					last = now
					changed()
				}
			}
		}
	}()
	return func() { close(done) }
}

// fileLook is what a look at one file sees.
type fileLook struct {
	path string
	size int64
	mod  time.Time
}

// lookAt is every wanted file of dirs as it is now, in order.
func lookAt(dirs []string, wants func(string) bool) []fileLook {
	var out []fileLook
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			out = append(out, fileLook{path: d, size: -1})
			continue
		}
		for _, en := range entries {
			if !wants(en.Name()) {
				continue
			}
			look := fileLook{path: filepath.Join(d, en.Name()), size: -1}
			if fi, err := en.Info(); err == nil {
				look.size, look.mod = fi.Size(), fi.ModTime()
			}
			out = append(out, look)
		}
	}
	return out
}
