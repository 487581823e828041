package stream

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/swarm-dev/swarm/swarm/remote"
)

// A cursor is where a subscriber stands in every machine's log: the id of the last event it
// was given (or looked past) of each. Ids are each machine's own, so one cursor names them
// all: this machine's bare (`41`), then each host's as HOST:ID in the order of their names
// (`41,box:17,cloud:3`). It is what a subscriber hands back to resume.
type Cursor map[string]int64

// MaxCursor bounds a cursor's text: a header or a query parameter a client sends is untrusted.
const MaxCursor = 4096

// maxMachines bounds how many machines one cursor names.
const maxMachines = 128

// String is the cursor as the wire carries it; this machine's id first (0 when it has none).
func (c Cursor) String() string {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(c[remote.LocalName], 10))
	hosts := make([]string, 0, len(c))
	for h := range c {
		if h != remote.LocalName {
			hosts = append(hosts, h)
		}
	}
	slices.Sort(hosts)
	for _, h := range hosts {
		b.WriteString(",")
		b.WriteString(h)
		b.WriteString(":")
		b.WriteString(strconv.FormatInt(c[h], 10))
	}
	return b.String()
}

// ParseCursor reads a cursor: a bare ID (this machine's), HOST:ID (a host's; local:ID is this
// machine's too), separated by commas, each machine once, no id negative.
func ParseCursor(s string) (Cursor, error) {
	if len(s) > MaxCursor {
		return nil, fmt.Errorf("the cursor is longer than %d bytes", MaxCursor)
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("the cursor is empty")
	}
	parts := strings.Split(s, ",")
	if len(parts) > maxMachines {
		return nil, fmt.Errorf("the cursor names more than %d machines", maxMachines)
	}
	c := Cursor{}
	for _, p := range parts {
		host, n := remote.LocalName, strings.TrimSpace(p)
		if h, id, ok := strings.Cut(n, ":"); ok {
			host, n = h, id
			if host != remote.LocalName {
				if err := remote.CheckName(host); err != nil {
					return nil, fmt.Errorf("the cursor's %s: %w", quote(p), err)
				}
			}
		}
		id, err := strconv.ParseInt(n, 10, 64)
		if err != nil || id < 0 {
			return nil, fmt.Errorf("the cursor's %s is not ID or HOST:ID (an id is a whole number, not negative)", quote(p))
		}
		if _, dup := c[host]; dup {
			return nil, fmt.Errorf("the cursor names %s twice", host)
		}
		c[host] = id
	}
	return c, nil
}

// quote shows a piece of what a client sent, bounded and escaped, in an error.
func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
}
