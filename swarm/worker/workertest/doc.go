// Package workertest gives tests of the worker lifecycle, and of the commands on top of it, a
// process table to go with tmuxtest's in-memory tmux server: a fake pane's program is its
// PID, so a kill ends the pane and nothing real is started or killed. It stands on tmuxtest
// alone, so that a Machine (package worker) can be built over it in worker's own tests.
package workertest
