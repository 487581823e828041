// Package remote is swarm on other machines, reached over SSH: the hosts a user has added
// (records in the state directory, with what was last seen of each), the connection to one
// (OpenSSH's own client with one multiplexed master connection per host, so the user's
// ~/.ssh/config, keys and agent do the authentication; a command asks that master for a
// session itself, in OpenSSH's multiplexing protocol, sparing it an ssh process), and what
// travels with a command (the files a spawn sends, the repository a host clones).
//
// Every host runs the same swarm binary with its own state directory and its own Regent, so
// a loop there never depends on the network: a command on a remote worker is that command
// run by the host's swarm, its output, JSON and exit code passed through as they are. There
// is no protocol of our own beyond a few hidden commands of the host's swarm (hello, a spawn
// bundle) whose shapes live here, shared by both ends; git carries the work between machines.
//
// It stands on state (files written atomically, locks) and ralph/git (a host's clone of the
// project), never on the commands, the worker lifecycle or the Regent: the commands above it
// decide what to run where. Only this package starts ssh; cmd/swarm's layering test checks
// that.
package remote
