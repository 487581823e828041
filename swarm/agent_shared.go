package swarm

import (
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
)

// swarm agent --shared: the agent takes its specs from an inbox shared with agents in other
// clones of the project, through the project's git remote (ralph/sharedinbox).

// hostNameVar names the host in the claims when set; else the machine's host name does.
const hostNameVar = "SWARM_HOST_NAME"

func agentSharedFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "shared", Usage: "take specs from the inbox shared with agents in other clones of the project, claimed on its git remote"},
		&cli.StringFlag{Name: "remote", Value: "origin", Usage: "with --shared: the shared remote"},
		&cli.DurationFlag{Name: "claim-timeout", Value: ralph.DefaultClaimTimeout,
			Usage: "with --shared: an active claim not renewed for this long may be taken over by another agent"},
		&cli.StringFlag{Name: "land-on", Usage: "with --shared: push each finished spec onto this branch of the remote when it applies cleanly (default: its own branch swarm/spec/ID)"},
	}
}

// sharedFromFlags is the --shared settings of an agent in project; nil without --shared.
func sharedFromFlags(c *cli.Context, project string, env map[string]string) (*ralph.SharedInbox, error) {
	if !c.Bool("shared") {
		for _, f := range []string{"remote", "claim-timeout", "land-on"} {
			if c.IsSet(f) {
				return nil, fail("--%s goes with --shared", f)
			}
		}
		return nil, nil
	}
	if c.Bool("dry-run") {
		return nil, fail("--dry-run plans in this clone only; it does not go with --shared")
	}
	s := &ralph.SharedInbox{Remote: c.String("remote"), LandOn: c.String("land-on"), Host: hostName(env)}
	if _, err := git.RemoteURL(project, s.Remote); err != nil {
		return nil, fail("--shared: %s has no remote '%s' (git remote add %s URL, or --remote NAME)", project, s.Remote, s.Remote)
	}
	timeout := c.Duration("claim-timeout")
	if timeout < time.Second {
		return nil, fail("--claim-timeout must be at least 1s (got %s)", timeout)
	}
	s.ClaimTimeout = int64(timeout / time.Second)
	if s.LandOn != "" && !git.ValidBranch(project, s.LandOn) {
		return nil, fail("invalid --land-on '%s': not a branch name", s.LandOn)
	}
	return s, nil
}

// hostName is the host as claims name it: SWARM_HOST_NAME (given with --env, or in swarm's
// own environment), else the machine's host name.
func hostName(env map[string]string) string {
	if h := env[hostNameVar]; h != "" {
		return h
	}
	if h := os.Getenv(hostNameVar); h != "" {
		return h
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "unknown-host"
}
