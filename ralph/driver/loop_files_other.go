//go:build !linux

package driver

// watchFiles watches nothing here: a kqueue watch of the directories (EVFILT_VNODE) is not
// written yet, so the loop reads its files every fallbackStatusPoll at least, as on Linux
// when no inotify instance is left.
func watchFiles(...string) *fileWatch { return nil }
