// Package state keeps swarm's durable data under one root directory ($SWARM_DIR, opened with
// Open, which refuses a directory another user owns or others can write): the workers'
// records in state.json, the per-worker files beside them (logs, exit codes, saved
// environments, start scripts, the host's pipe, the input lock), and the directory each loop
// keeps its own files in (RalphDir).
//
// Its other half is the way every file of swarm is written and read, whoever owns it. Every
// write is atomic (temp file, rename: a reader never sees a torn file, a killed writer never
// leaves one), what must survive a crash of the machine also waits for the disk (fsync of the
// file and its directory; ReplaceFile skips that for files rewritten before each use), and
// every read-modify-write happens under a sidecar flock (Lock), so concurrent swarm commands
// never lose an update. A file that is not JSON at all is set aside and reported
// (CorruptError), so nothing reads it again; JSON that does not fit is left in place,
// since it may be another version's. Logs grow a line at a time (Log: one write per line, bounded by rotation where it must be).
//
// Where to start: Dir and Worker; LoadWorkers, UpdateWorkers and NoteWorkerStart for the
// records (SharedWorker in a process that drives many loops: the file is decoded once per
// change, not once per look of every loop); WriteJSON, ReadJSON and AcquireLock for everybody
// else's files; WatchFiles for a command that waits for files to change (the kernel tells it,
// or they are polled where it cannot). ParseTime and Worker's UnmarshalJSON also read what the Python
// swarm wrote, so an existing state directory carries over.
//
// state is the bottom layer: it stands on no other package of the module (the layering test
// in cmd/swarm checks that), runs neither tmux nor git, and knows no loop. What it cannot
// know itself comes in from above: a corrupt state.json is rebuilt from the workers still
// running through Dir.Rebuild, which the CLI sets, since finding them needs tmux and /proc.
// Frequent small reads and writes use bare system calls (rawio.go): with fifty loops each
// call counts.
package state
