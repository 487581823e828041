// Package testrun runs a test command, the one way swarm does: the loop's test gate (package
// ralph/driver) and the merge queue (swarm/land) both call Run, so a command means the same
// to both.
//
// The rules: the command runs with `sh -c` in a directory, in a process group of its own, so
// that a time limit, a stop (its context ending) or the end of whatever it left running takes
// the whole group, not just the shell; on Linux the shell dies with the process that started
// it (Pdeathsig; macOS has no such signal: deathsig_other.go), and a caller that must also
// end what a killed run left behind tags the run (Spec.Env) or records its group while it
// runs (Spec.Started). An exit of 126 or 127 (the
// shell's own "cannot execute" and "not found"), a missing shell or a directory it cannot
// enter is a command that cannot run: a configuration error, never a suite that failed. The
// output, stdout and stderr together, is kept bounded in memory and on disk: its first
// HeadSize bytes and its last TailSize bytes, with a line between them saying how much was
// cut and how much there was in all, so a suite printing gigabytes costs neither.
//
// It stands on the standard library alone: the loop's driver and the CLI both use it, and it
// knows neither.
package testrun
