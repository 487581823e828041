// Package sandbox decides how a worker's agent is confined: whether it is (a mode of the
// user's, and whether the agent's command skips its own permission prompts), what of the
// machine it sees (Plan: bubblewrap's arguments from the facts of one start), and which files
// of its own agent it may write. It runs nothing: the launcher (swarm __sandbox) gathers the
// facts and starts bubblewrap, the probe in this package's platform files says whether
// bubblewrap works here.
//
// What the agent sees: the filesystem read-only; its working directory read-write (a
// worktree that is a clone of its own, so that nothing it does in git reaches another branch);
// its own agent's configuration read-write; a private /tmp and a private home in which the
// dot-files come back read-only, except secrets and other agents' files; no other project of
// the user's; none of swarm's state but its box (where its signals go); no tmux socket.
package sandbox
