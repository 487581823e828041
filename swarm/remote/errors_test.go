package remote

import (
	"bytes"
	"strings"
	"testing"
)

func testConn() *Conn {
	return &Conn{Host: Host{Name: "box", Address: "me@box:2222"}, end: Endpoint{Dest: "me@box", Port: "2222"}}
}

func TestClassifyNamesWhatWentWrong(t *testing.T) {
	cases := []struct {
		said string
		kind Kind
	}{
		{"me@box: Permission denied (publickey).", KindAuth},
		{"Host key verification failed.", KindHostKey},
		{"ssh: connect to host box port 2222: Connection refused", KindUnreachable},
		{"ssh: connect to host box port 2222: Connection timed out", KindUnreachable},
		{"ssh: Could not resolve hostname box: Name or service not known", KindUnreachable},
		{"Warning: Permanently added 'box' (ED25519) to the list of known hosts.\nkex_exchange_identification: read: Connection reset by peer", KindUnreachable},
		{"something else entirely", KindSSH},
	}
	for _, c := range cases {
		e := testConn().Classify(c.said)
		if e.Kind != c.kind {
			t.Errorf("Classify(%q) = %s, want %s", c.said, e.Kind, c.kind)
		}
		if strings.Contains(e.Detail, "Warning: Permanently added") {
			t.Errorf("the detail kept ssh's first-connection warning: %q", e.Detail)
		}
	}
	msg := testConn().Classify("me@box: Permission denied (publickey).").Error()
	for _, want := range []string{"SSH authentication failed", "ssh -p 2222 me@box", "ssh-add"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the authentication message %q lacks %q", msg, want)
		}
	}
}

func TestStderrFilterHoldsBackSSHLines(t *testing.T) {
	var out bytes.Buffer
	f := NewStderrFilter(&out)
	_, _ = f.Write([]byte("swarm: error: no worker named 'w9'\nssh: connect to host box port 22: Conn"))
	_, _ = f.Write([]byte("ection refused\nlast line without newline"))
	f.Close()
	if got := out.String(); got != "swarm: error: no worker named 'w9'\nlast line without newline" {
		t.Fatalf("passed on %q", got)
	}
	if f.Said() != "ssh: connect to host box port 22: Connection refused" {
		t.Fatalf("held %q", f.Said())
	}
}
