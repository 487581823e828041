package egress

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeResolver answers from a table; a name it does not know is not found, and a name
// mapped to "hang" does not answer until release is closed, whatever its context says.
type fakeResolver struct {
	mu      sync.Mutex
	names   map[string]string
	looked  []string
	release chan struct{}
}

func (f *fakeResolver) LookupHost(ctx context.Context, host string) ([]string, error) {
	f.mu.Lock()
	f.looked = append(f.looked, host)
	answer, ok := f.names[host]
	f.mu.Unlock()
	switch {
	case !ok:
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	case answer == "hang":
		<-f.release
		return nil, errors.New("released")
	case answer == "timeout":
		return nil, &net.DNSError{Err: "i/o timeout", Name: host, IsTimeout: true}
	case answer == "servfail":
		return nil, &net.DNSError{Err: "server misbehaving", Name: host}
	case answer == "empty":
		return nil, nil
	}
	return []string{answer}, nil
}

func mustAllow(t *testing.T, entries ...string) Allowlist {
	t.Helper()
	a, err := ParseAllow(entries)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestReachableOneNameIsEnough(t *testing.T) {
	r := &fakeResolver{names: map[string]string{"api.anthropic.com": "192.0.2.1"}}
	if err := Reachable(context.Background(), mustAllow(t, "gone.example:443", "api.anthropic.com:443"), r); err != nil {
		t.Errorf("one name resolves: %v", err)
	}
}

func TestReachableIPLiteral(t *testing.T) {
	r := &fakeResolver{}
	if err := Reachable(context.Background(), mustAllow(t, "gone.example", "[::1]:8080"), r); err != nil {
		t.Errorf("an IP address is reachable as it is: %v", err)
	}
	if len(r.looked) != 0 {
		t.Errorf("looked up %q with an IP address in the list", r.looked)
	}
}

func TestReachableWildcardByItsBase(t *testing.T) {
	r := &fakeResolver{names: map[string]string{"githubcopilot.com": "192.0.2.7"}}
	if err := Reachable(context.Background(), mustAllow(t, "*.githubcopilot.com:443"), r); err != nil {
		t.Errorf("a wildcard whose base resolves: %v", err)
	}
	if len(r.looked) != 1 || r.looked[0] != "githubcopilot.com" {
		t.Errorf("looked up %q, want the base domain", r.looked)
	}
}

func TestReachableNoneResolves(t *testing.T) {
	r := &fakeResolver{names: map[string]string{"slow.example": "timeout", "broken.example": "servfail",
		"blank.example": "empty"}}
	err := Reachable(context.Background(), mustAllow(t, "gone.example:443", "slow.example", "*.broken.example", "blank.example"), r)
	want := "--sandbox-net allow: no host in the allowlist resolves, so the agent could reach nothing: " +
		"gone.example:443 (no such host), slow.example (timed out), *.broken.example (server misbehaving), blank.example (no address)"
	if err == nil || err.Error() != want {
		t.Errorf("Reachable = %v\nwant %s", err, want)
	}
}

func TestReachableResolverThatHangs(t *testing.T) {
	r := &fakeResolver{names: map[string]string{"stuck.example": "hang"}, release: make(chan struct{})}
	defer close(r.release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := Reachable(ctx, mustAllow(t, "stuck.example", "gone.example"), r)
	if err == nil || !strings.Contains(err.Error(), "stuck.example (timed out), gone.example (no such host)") {
		t.Errorf("Reachable = %v", err)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("Reachable waited %v on a resolver that does not answer", time.Since(start))
	}
}

func TestReachableNamesAtMostSome(t *testing.T) {
	var entries []string
	for _, c := range "abcdefghijkl" {
		entries = append(entries, string(c)+".example")
	}
	err := Reachable(context.Background(), mustAllow(t, entries...), &fakeResolver{})
	if err == nil || !strings.HasSuffix(err.Error(), "h.example (no such host), and 4 more") {
		t.Errorf("Reachable = %v", err)
	}
	if err := Reachable(context.Background(), Allowlist{}, &fakeResolver{}); err == nil {
		t.Error("an empty allowlist is reachable")
	}
}
