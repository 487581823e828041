package swarm

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/swarm/remote"
)

// A spawn on a host whose connection is lost after its bundle went may have started the
// worker there or not: the host's receipt of the spawn says which (remote.AskSpawn), and what
// is said here is only what is known. A worker the host started is recorded here at once
// (remote.Registry.AddSpawned): a host that goes down before anyone lists it again still
// shows it.

const (
	// spawnAskLimit is how long a host has to answer one question about a spawn.
	spawnAskLimit = 15 * time.Second
	// spawnSettleLimit is how long a spawn the host is still at is waited for.
	spawnSettleLimit = 60 * time.Second
	// spawnPoll is how often a host still at a spawn is asked again.
	spawnPoll = 500 * time.Millisecond
)

// spawnLost settles the spawn id of worker name on host h, whose connection failed with lost
// after its bundle may have arrived: 0 when the host says the worker started (after a
// warning), else an error saying it did not, or that it is not known and what tells.
func spawnLost(c *cli.Context, root string, h remote.Host, id, name string, lost error) (int, error) {
	target := name + "@" + h.Name
	what := fmt.Sprintf("the connection to host %s was lost during the spawn of %s (%s)", h.Name, name, sshWhy(lost))
	r, err := askReceipt(root, h, id)
	var re *remote.RemoteError
	switch {
	case errors.As(err, &re):
		return 0, fail("%s, and %s cannot say what became of it (%s): whether %s started there is not known; swarm status %s tells",
			what, h.Name, hostText(re.Said), name, target)
	case err != nil:
		return 0, fail("%s, and %s does not answer now (%s): whether %s started there is not known; swarm status %s tells once it answers",
			what, h.Name, sshWhy(err), name, target)
	case r.State == remote.SpawnStarted:
		fmt.Fprintf(c.App.ErrWriter, "swarm: warning: %s; %s says it started there: swarm status %s\n", what, h.Name, target)
		return 0, nil
	case r.State == remote.SpawnRefused:
		return 0, fail("%s; %s did not start it: %s", what, h.Name, hostText(r.Said))
	case r.State == remote.SpawnGivenUp:
		return 0, fail("%s; %s never got it: %s was not started there (spawn it again)", what, h.Name, name)
	case r.State == remote.SpawnSpawning:
		return 0, fail("%s; %s is still at it after %s: whether %s started there is not known yet; swarm status %s tells",
			what, h.Name, words.Short(spawnSettleLimit), name, target)
	}
	return 0, fail("%s; the spawn on %s ended before it said how it went: whether %s started there is not known; swarm status %s tells",
		what, h.Name, name, target)
}

// sshWhy is what went wrong reaching a host, in a few words: what ssh said, when it was ssh.
func sshWhy(err error) string {
	var e *remote.Error
	if errors.As(err, &e) {
		return hostText(e.Detail)
	}
	return strings.TrimSuffix(hostProblem(err), ".")
}

// askReceipt asks host h what became of the spawn id, again while it is still at it (within
// spawnSettleLimit).
func askReceipt(root string, h remote.Host, id string) (remote.Receipt, error) {
	deadline := time.Now().Add(spawnSettleLimit)
	for {
		var r remote.Receipt
		out, err := askWithin(root, h, spawnAskLimit, "host", "__spawned", id)
		if err != nil {
			return r, err
		}
		if err := json.Unmarshal(out, &r); err != nil {
			return r, fmt.Errorf("host %s answered what this swarm cannot read: %v", h.Name, err)
		}
		if r.State != remote.SpawnSpawning || time.Now().After(deadline) {
			return r, nil
		}
		time.Sleep(spawnPoll)
	}
}

// recordSpawned records here what was started on host by the command line c: the files sent
// with it, and the worker itself among what was last seen of the host.
func recordSpawned(c *cli.Context, root, host, name string, sent []remote.SentFile) {
	reg := remote.RegistryOf(root)
	if len(sent) > 0 {
		if err := reg.SaveSent(host, remote.Sent{Worker: name, Files: sent}); err != nil {
			fmt.Fprintf(c.App.ErrWriter, "swarm: warning: cannot record what was sent with %s@%s: %v\n", name, host, err)
		}
	}
	now := time.Now()
	w := workerJSON{Name: name, Host: host, Status: "running", State: "running", Started: now.UTC().Format(time.RFC3339),
		Cmd: c.Args().Slice(), Cwd: c.String("cwd"), Tags: c.StringSlice("tag"), Metadata: map[string]any{}}
	if w.Tags == nil {
		w.Tags = []string{}
	}
	switch strings.TrimPrefix(typedCommand(c), c.App.Name+" ") {
	case "ralph spawn", "agent":
		w.Metadata["ralph"] = true
	default:
		if c.Bool("ralph") {
			w.Metadata["ralph"] = true
		}
	}
	data, err := json.Marshal(w)
	if err == nil {
		err = reg.AddSpawned(host, name, now, data)
	}
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "swarm: warning: cannot record here that %s@%s was started: %v\n", name, host, err)
	}
}
