//go:build !linux

package state

// watchKernel: elsewhere than on Linux the files are polled for (pollFiles).
func watchKernel(dirs []string, wants func(string) bool, changed func()) (stop func(), ok bool) {
	return nil, false
}
