package proc

// What a kqueue tells of a watched process (macOS and the BSDs; exitwatch_darwin.go), decoded
// here without the system's own types so that the decoding is tested on every system.

// kevent is the part of a kqueue event read here: its process (ident), kind (filter), flags
// and the filter's own flags (fflags).
type kevent struct {
	ident  uint64
	filter int16
	flags  uint16
	fflags uint32
}

// The values of macOS's <sys/event.h> that the decoding reads (exitwatch_darwin.go checks
// them against golang.org/x/sys/unix when built there).
const (
	evfiltProc = -5         // EVFILT_PROC: an event of a process
	evError    = 0x4000     // EV_ERROR: the watch itself failed (data holds the errno)
	noteExit   = 0x80000000 // NOTE_EXIT: the process ended
)

// endTold reports whether events tell that process pid ended, or that its watch failed: either
// way the watcher stops waiting, and its caller looks at the process itself.
func endTold(events []kevent, pid int) bool {
	for _, ev := range events {
		if ev.ident != uint64(pid) || ev.filter != evfiltProc {
			continue
		}
		if ev.fflags&noteExit != 0 || ev.flags&evError != 0 {
			return true
		}
	}
	return false
}
