package swarm

import (
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// argsSentToHost is the command line the host's swarm is given for a spawn typed as args
// (after "swarm").
func argsSentToHost(t *testing.T, cmd *cli.Command, args ...string) []string {
	t.Helper()
	var sent []string
	cmd.Action = func(c *cli.Context) error {
		var err error
		sent, _, _, err = hostArgs(c, "w")
		return err
	}
	app := &cli.App{Name: "swarm", Commands: []*cli.Command{cmd}}
	if err := app.Run(append([]string{"swarm"}, args...)); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return sent
}

func TestSandboxFlagsTravelToTheHost(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--sandbox"}, []string{"--sandbox=on"}},
		{[]string{"--sandbox=required"}, []string{"--sandbox=required"}},
		{[]string{"--sandbox=off"}, []string{"--sandbox=off"}},
		{[]string{"--no-sandbox"}, []string{"--no-sandbox=true"}},
		{[]string{"--sandbox", "--sandbox-net", "allow=api.example.com:443,10.0.0.1"}, []string{"--sandbox=on", "--sandbox-net", "allow=api.example.com:443,10.0.0.1"}},
		{[]string{"--sandbox-net=none"}, []string{"--sandbox-net", "none"}},
	} {
		for _, cmd := range []*cli.Command{spawnCommand(), ralphSpawnCommand(), agentCommand()} {
			args := append(append([]string{cmd.Name, "--name", "w@h1"}, c.args...), "--", "claude", "--dangerously-skip-permissions")
			sent := argsSentToHost(t, cmd, args...)
			line := strings.Join(sent, " ")
			if !strings.Contains(line, strings.Join(c.want, " ")) {
				t.Errorf("%s %v: sent %q, want %q in it", cmd.Name, c.args, line, c.want)
			}
			// The agent's command comes whole after --, nothing of the flags' values before it.
			if i := slices.Index(sent, "--"); i < 0 || !slices.Equal(sent[i+1:], []string{"claude", "--dangerously-skip-permissions"}) {
				t.Errorf("%s %v: sent %q: the agent's command is not whole after --", cmd.Name, c.args, line)
			}
		}
	}
}

func TestNoSandboxFlagIsSentWhenNoneIsGiven(t *testing.T) {
	sent := argsSentToHost(t, spawnCommand(), "spawn", "--name", "w@h1", "--tmux", "--", "claude")
	for _, a := range sent {
		if strings.Contains(a, "sandbox") {
			t.Errorf("sent %q: a flag not given travels (the host's own [sandbox] decides)", sent)
		}
	}
}
