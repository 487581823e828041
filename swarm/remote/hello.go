package remote

// Hello is what a host's swarm says of itself (`swarm host __hello`): enough to check that
// it is the same swarm and to show the host in `swarm host ls`, in one round trip.
type Hello struct {
	Version  string `json:"version"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	StateDir string `json:"state_dir"`
	// Workers and Running count the host's workers, and those whose process runs.
	Workers int `json:"workers"`
	Running int `json:"running"`
	// Loops are its loops that are not finished; Parked those of them waiting out a usage limit.
	Loops  int `json:"loops"`
	Parked int `json:"parked"`
	// Load is the 1-minute load average; MemAvailable the memory free for new programs, in
	// bytes (0 where the host does not tell).
	Load         float64 `json:"load"`
	CPUs         int     `json:"cpus"`
	MemAvailable int64   `json:"mem_available"`
	Regent       string  `json:"regent"`
	// Committer is who git commits as there ("Name <email>"), for the agents' commits;
	// CommitProblem is git's word when it has no identity to commit with.
	Committer     string `json:"committer,omitempty"`
	CommitProblem string `json:"commit_problem,omitempty"`
	// Sandbox is "bwrap" where the host's agents can be confined, "none" where they cannot
	// (SandboxProblem says why, and the fix); "" from a swarm that does not say.
	Sandbox        string `json:"sandbox,omitempty"`
	SandboxProblem string `json:"sandbox_problem,omitempty"`
}
