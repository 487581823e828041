package sandbox

import (
	"fmt"
	"strings"
)

// The network an agent has: the machine's (open), none but its own loopback (none), or only
// the hosts of an allowlist, through the egress proxy outside (allow).
const (
	NetOpen  = "open"
	NetNone  = "none"
	NetAllow = "allow"
)

// Net is --sandbox-net read: its kind, and for allow the entries as given (the egress
// package checks them; an empty list means the agent's model API).
type Net struct {
	Kind  string
	Allow []string
}

// ParseNet reads --sandbox-net: open, none, allow, or allow=HOST[:PORT],... ("" is open).
func ParseNet(s string) (Net, error) {
	s = strings.TrimSpace(s)
	kind, list, hasList := strings.Cut(s, "=")
	switch strings.ToLower(kind) {
	case "", NetOpen:
		if hasList {
			break
		}
		return Net{Kind: NetOpen}, nil
	case NetNone:
		if hasList {
			break
		}
		return Net{Kind: NetNone}, nil
	case NetAllow:
		n := Net{Kind: NetAllow}
		for _, e := range strings.Split(list, ",") {
			if e = strings.TrimSpace(e); e != "" {
				n.Allow = append(n.Allow, e)
			}
		}
		return n, nil
	}
	return Net{}, fmt.Errorf("--sandbox-net must be open, none or allow=HOST[:PORT],... (got %q)", s)
}

// String is the value as --sandbox-net takes it.
func (n Net) String() string {
	if n.Kind == NetAllow && len(n.Allow) > 0 {
		return NetAllow + "=" + strings.Join(n.Allow, ",")
	}
	if n.Kind == "" {
		return NetOpen
	}
	return n.Kind
}
