// Package testmachine is the machine the unit tests of the worker lifecycle, the loops, the
// Regent and the commands run on: a state directory in a temporary directory, the in-memory
// tmux server (tmuxtest) and the process table of its pretend programs (workertest), so that
// nothing real is started or killed; and the looks at a loop those tests share.
//
// It stands below swarm/worker, so that worker's own tests can use it too: each test package
// builds its worker.Machine over a Bench (worker.NewMachine(b.State, b.Fake, b.Processes,
// b.Warnings)).
package testmachine
