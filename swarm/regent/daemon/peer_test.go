package daemon

import (
	"net"
	"testing"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
)

// A client of this user, on the Regent's own socket, passes the peer check.
func TestSamePeerTakesThisUsersClient(t *testing.T) {
	d := &state.Dir{Root: t.TempDir()}
	ln, err := regent.Listen(d)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	passed := make(chan bool, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			passed <- false
			return
		}
		defer conn.Close()
		passed <- SamePeer(conn)
	}()
	conn, err := net.Dial("unix", regent.Address(d))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if !<-passed {
		t.Error("the Regent took its own user's client for another's")
	}
}

// Only a Unix connection can show its peer's user.
func TestSamePeerNeedsAUnixConnection(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if SamePeer(a) {
		t.Error("a pipe passed as this user's peer")
	}
}
