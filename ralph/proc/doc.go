// Package proc reads and ends processes through Linux's /proc, macOS's sysctl records and
// the kernel's own calls:
// whether a process still runs (and is the one that was started, not a later one with its
// PID: Alive with the start time from Start or Stat), whole process groups (GroupAlive,
// KillGroup: SIGTERM, a grace, then SIGKILL; KillGroups of many at once, all signalled first and
// waited for within the one grace), and the processes that carry a worker's identity in their
// environment after leaving its group (Tagged, KillTagged, KillTaggedEach), since an agent that
// runs setsid or double-forks is still that worker's to end. Exited watches a process
// end with no polling: through a pidfd where Linux has them, a kqueue on macOS. What differs
// per system is in files named for it (proc_*, tagged_*, mark_*, fds_*, machine_*); what
// macOS's records hold is decoded in kinfo.go, which every system tests. Machine is the
// machine's load and free memory, for the fleet view.
//
// Its readers are hot: a Regent driving fifty loops looks for every agent's leftovers at each
// iteration's end. So /proc files are read with bare system calls (read_linux.go), a
// process's environment is kept for a moment once read (tagged.go: it changes only at an
// exec), and Mark narrows a look to the processes started since an agent began, by the
// kernel's last handed-out PID, instead of all of them.
//
// The package knows no worker, loop or tmux: it takes PIDs, groups and KEY=VALUE tags, and
// stands on the standard library alone. It sits below its lowest user, the loop's driver,
// which ends the process groups of the steps a driver that died left running (children.go);
// the worker lifecycle (swarm/worker) and the Regent use it too. The driver's view of an
// agent's processes is its driver.Procs interface, which the Regent fills with an adapter
// over this package (swarm/loop's loopProcs), so the driver's tests can fake processes.
// Usage is what swarm regent status reports of the Regent's own use, and EndStdoutTo ends
// the copier of a pane's output when a loop stops following it.
package proc
