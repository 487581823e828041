package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// ResolveTimeout bounds how long Reachable waits for the names of an allowlist: a spawn
// waits on it, and a resolver that does not answer must not hold the spawn for long.
const ResolveTimeout = 5 * time.Second

// maxNamed is how many unresolved entries an error names before it counts the rest.
const maxNamed = 8

// Resolver looks up a host's addresses; *net.Resolver is one (net.DefaultResolver).
type Resolver interface {
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// Reachable refuses an allowlist that names nothing the agent could reach: it is nil as soon
// as one entry is an IP address or one name resolves (a wildcard's by its base domain), and
// otherwise an error naming every entry and why it did not resolve. An allowlist with some
// dead entries passes: a mirror that is down tonight is not a reason to refuse the rest.
func Reachable(ctx context.Context, a Allowlist, r Resolver) error {
	if len(a.entries) == 0 {
		return errors.New("--sandbox-net allow: names no host")
	}
	for _, e := range a.entries {
		if e.ip {
			return nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, ResolveTimeout)
	defer cancel()
	type answer struct {
		i   int
		err error
	}
	answers := make(chan answer, len(a.entries))
	for i, e := range a.entries {
		go func() {
			addrs, err := r.LookupHost(ctx, e.host)
			if err == nil && len(addrs) == 0 {
				err = errors.New("no address")
			}
			answers <- answer{i, err}
		}()
	}
	errs := make([]error, len(a.entries))
	for pending := len(a.entries); pending > 0 && ctx.Err() == nil; pending-- {
		select {
		case ans := <-answers:
			if ans.err == nil {
				return nil
			}
			errs[ans.i] = ans.err
		case <-ctx.Done():
		}
	}
	var whys []string
	for i, e := range a.entries {
		if i == maxNamed {
			whys = append(whys, fmt.Sprintf("and %d more", len(a.entries)-i))
			break
		}
		err := errs[i]
		if err == nil { // no answer in time, from a resolver that does not heed its context
			err = ctx.Err()
		}
		whys = append(whys, e.String()+" ("+whyUnresolved(err)+")")
	}
	return fmt.Errorf("--sandbox-net allow: no host in the allowlist resolves, so the agent could reach nothing: %s",
		strings.Join(whys, ", "))
}

// whyUnresolved says in a few words why a lookup failed.
func whyUnresolved(err error) string {
	var dns *net.DNSError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &dns) && dns.IsTimeout:
		return "timed out"
	case errors.As(err, &dns) && dns.IsNotFound:
		return "no such host"
	case errors.As(err, &dns):
		return dns.Err
	}
	return err.Error()
}
