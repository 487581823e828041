// Package loop is a loop's life as seen from outside its driver: what the commands, the
// Regent's daemon, landing's send-back and the web server do to a loop, all through the same
// methods of Loops, the loops of one machine (On).
//
// Begin creates the loop's worker with iteration 1's agent through the same driver.Starter every
// later iteration starts through (MakeRoom frees its name first, SaveSequence records a chain's
// or an agent's later loops, Undo takes a half-started one down); Pause and Resume change it
// through its own transition under the loop lock, and WakeDriver has something drive it again;
// Kill and KillAll stop it for good (StopOnKill, even on a full disk) and end whatever drives it,
// then its worker and heartbeat. They return what the commands print and never print
// themselves beyond the machine's one-line warnings.
//
// A loop is driven by the Regent when supervised, otherwise by a monitor process of its own
// (StartMonitor, RunMonitor); both drive it through Drive, on ralph's policy core, and write its
// lines to its monitor.log (MonitorLog). The foreground's face (progress line, summary, exit
// codes) is the commands'.
//
// It asks the Regent through swarm/regent's client and never imports its daemon or the
// commands: cmd/swarm's layering test checks that.
package loop
