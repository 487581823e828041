// Package inbox is a project's queue of specs waiting for an agent: ralph/inbox.jsonl, one
// record per line, processed first in, first out. Every change rewrites the file atomically
// under a lock; a file that cannot be read is an error naming its line, never rewritten.
//
// A queue shared by agents in several clones of a project (swarm agent --shared) is the
// remote's committed inbox merged into each clone's (MergeRemote), with one claim per spec on
// the remote saying who works on it (claim.go: the claim commit's message format); PickShared
// decides, from the records, the claims, the time and the timeout, which spec an agent takes
// and how. Pushing the claims is ralph/sharedinbox's.
//
// Its users are agent mode (package ralph), which takes the next spec, marks it active and
// records how it ended, and the CLI (package swarm), whose inbox commands add, list, remove
// and clear specs and whose agent status shows the queue. It sits beside the loop, not under
// the CLI, because the loop needs it and must not depend on the CLI.
package inbox
