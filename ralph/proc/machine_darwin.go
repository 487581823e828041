//go:build darwin

package proc

import "golang.org/x/sys/unix"

// machine asks the kernel for vm.loadavg, and counts as available the pages it keeps free
// or holds speculatively (what it hands out first): macOS's own "available" figure comes
// from a Mach call Go reaches only with cgo.
func machine() (load float64, avail int64) {
	if rec, err := unix.SysctlRaw("vm.loadavg"); err == nil {
		load = darwinLoad(rec)
	}
	free, err1 := unix.SysctlUint32("vm.page_free_count")
	spec, err2 := unix.SysctlUint32("vm.page_speculative_count")
	if err1 == nil && err2 == nil {
		avail = (int64(free) + int64(spec)) * int64(unix.Getpagesize())
	}
	return load, avail
}
