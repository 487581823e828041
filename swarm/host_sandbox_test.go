package swarm

import (
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/swarm/remote"
)

func TestHostsSayWhetherTheyCanSandbox(t *testing.T) {
	for _, c := range []struct {
		h          remote.Hello
		added, col string
	}{
		{remote.Hello{}, "", "-"},
		{remote.Hello{Sandbox: "bwrap"}, ", sandbox: bwrap", "bwrap"},
		{remote.Hello{Sandbox: "none", SandboxProblem: "bubblewrap is not installed"}, ", no sandbox", "none"},
		{remote.Hello{Sandbox: "b\x1b[2Jwrap"}, ", sandbox: b\\x1b[2Jwrap", "b\\x1b[2Jwrap"},
	} {
		if got := sandboxOfHost(c.h); got != c.added {
			t.Errorf("sandboxOfHost(%+v) = %q, want %q", c.h, got, c.added)
		}
		if got := sandboxCellOfHost(c.h); got != c.col {
			t.Errorf("sandboxCellOfHost(%+v) = %q, want %q", c.h, got, c.col)
		}
	}
}

func TestHostLsSaysWhyAHostCannotSandbox(t *testing.T) {
	var out, errb strings.Builder
	e := &env{stdout: &out, stderr: &errb}
	printHostTable(e, []hostRow{
		{Name: "box", Address: "me@box", Reachable: true, Hello: remote.Hello{Version: Version, Sandbox: "bwrap"}},
		{Name: "old", Address: "me@old", Reachable: true, Hello: remote.Hello{Version: Version, Sandbox: "none",
			SandboxProblem: "bubblewrap is not installed (apt-get install bubblewrap)\x1b[2J"}},
		{Name: "gone", Address: "me@gone", Kind: "unreachable", Problem: "no route"},
	})
	lines := strings.Split(out.String(), "\n")
	if !strings.HasSuffix(lines[0], "  SANDBOX") || !strings.HasSuffix(lines[1], "  bwrap") || !strings.HasSuffix(lines[2], "  none") || !strings.HasSuffix(lines[3], "  -") {
		t.Errorf("table:\n%s", out.String())
	}
	want := "swarm: old: cannot confine its agents: bubblewrap is not installed (apt-get install bubblewrap)\\x1b[2J\nswarm: gone: no route\n"
	if errb.String() != want {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}
