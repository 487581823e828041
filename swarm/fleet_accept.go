package swarm

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// A host's workers are taken in as untrusted. The answer is bounded in size where it is read
// (remote.MaxReply); each worker must have a name a command could take (worker.ValidateName,
// as for this machine's), else it is left out and said so, escaped: a name is never printed
// raw, and never split in two by a newline in `ls --format names`. The rest of what a host
// says of a worker is shown escaped (printFleetTable); JSON escapes it by itself.

// lsReply is a host's answer to `swarm host __ls`: its swarm's version with its workers, in
// one round trip.
type lsReply struct {
	Version string       `json:"version"`
	Workers []workerJSON `json:"workers"`
}

// acceptWorkers keeps the workers of a host whose names are valid, and says what was left
// out ("" when nothing was).
func acceptWorkers(host string, workers []workerJSON) (kept []workerJSON, left string) {
	var bad []string
	kept = workers[:0]
	for _, w := range workers {
		if why := invalidName(w.Name); why != "" {
			bad = append(bad, why)
			continue
		}
		kept = append(kept, w)
	}
	return kept, leftOut(host, bad)
}

// invalidName is why a host's worker name could not be taken by a command, escaped; "" for
// a valid one.
func invalidName(name string) string {
	if err := worker.ValidateName(name); err != nil {
		return hostText(err.Error())
	}
	return ""
}

// leftOut says that host's workers were left out for the reasons bad (the first few); ""
// when none was.
func leftOut(host string, bad []string) string {
	n := len(bad)
	if n == 0 {
		return ""
	}
	if n > 3 {
		bad = append(bad[:3:3], "...")
	}
	return fmt.Sprintf("%s named %s no command can take, left out (%s)",
		host, words.Plural(n, "worker"), strings.Join(bad, "; "))
}

// readLsReply reads a host's `host __ls` (or, from a swarm that has none, `ls --format json`,
// whose version is not said), and gives its workers as the host wrote them too.
func readLsReply(host string, out []byte, plain bool) (lsReply, json.RawMessage, error) {
	var r lsReply
	raw := json.RawMessage(out)
	if !plain {
		var wrapped struct {
			Version string          `json:"version"`
			Workers json.RawMessage `json:"workers"`
		}
		if err := json.Unmarshal(out, &wrapped); err != nil {
			return r, nil, fmt.Errorf("host %s answered what this swarm cannot read: %v", host, err)
		}
		r.Version, raw = wrapped.Version, wrapped.Workers
	}
	if err := json.Unmarshal(raw, &r.Workers); err != nil {
		return r, nil, fmt.Errorf("host %s answered what this swarm cannot read: %v", host, err)
	}
	return r, raw, nil
}

func hostLsReplyCommand() *cli.Command {
	return &cli.Command{
		Name: "__ls", Hidden: true, Usage: "this machine's workers and its swarm's version, as JSON (for another machine's ls)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "status", Value: "all"},
			&cli.StringFlag{Name: "tag"},
		},
		Action: func(c *cli.Context) error {
			o := lsOptions{Format: "json", Status: c.String("status"), Tag: c.String("tag")}
			return withEnv(c, o.check, func(e *env) error {
				list, err := localWorkers(e, o)
				if err != nil {
					return err
				}
				return printJSON(e, lsReply{Version: Version, Workers: workersJSON(e, list)})
			})
		},
	}
}
