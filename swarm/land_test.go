package swarm

import (
	"testing"

	"github.com/swarm-dev/swarm/swarm/land"
)

func TestLandingText(t *testing.T) {
	cases := []struct {
		l    landingJSON
		want string
	}{
		{landingJSON{State: land.Landed, Target: "main", Commit: "0123456789abcdef"}, "landed on main at 0123456"},
		{landingJSON{State: land.NeedsRebase, Target: "main", Reason: "conflicts with main in a.txt"}, "needs rebase: conflicts with main in a.txt"},
		{landingJSON{State: land.Testing, Target: "main"}, "testing (into main)"},
	}
	for _, tc := range cases {
		if got := landingText(&tc.l); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
