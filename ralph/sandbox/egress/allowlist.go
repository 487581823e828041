package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// The bounds of an allowlist: it comes from flags and configuration files, which are
// untrusted, and every connection the agent makes is checked against it.
const (
	MaxEntries  = 64
	MaxEntryLen = 253 // the longest DNS name
)

// Allowlist is the set of destinations a sandboxed agent may reach: host names, suffix
// wildcards (*.example.com: any name under example.com, not example.com itself) and IP
// addresses, each with one port or any port. The zero Allowlist allows nothing.
type Allowlist struct {
	entries []entry
}

// entry is one destination, in canonical form: a lower-case name without its trailing dot,
// the base domain of a wildcard, or an IP address as netip prints it (IPv4-mapped IPv6
// addresses unmapped, so one address has one spelling).
type entry struct {
	host     string
	wildcard bool
	ip       bool
	port     int // 0: any port
}

// ParseAllow reads entries of the form HOST[:PORT]: a host name, *.DOMAIN, an IPv4 address
// or a bracketed IPv6 address, with a port from 1 to 65535 or none for any port. Duplicates
// are kept once. An empty list is an error: an allowlist that names nothing would refuse
// every connection, which is --sandbox-net none said another way.
func ParseAllow(entries []string) (Allowlist, error) {
	if len(entries) == 0 {
		return Allowlist{}, errors.New("--sandbox-net allow: names no host (write allow=HOST[:PORT],...)")
	}
	if len(entries) > MaxEntries {
		return Allowlist{}, fmt.Errorf("--sandbox-net allow: %d entries, at most %d", len(entries), MaxEntries)
	}
	var a Allowlist
	seen := map[entry]bool{}
	for _, s := range entries {
		e, err := parseEntry(strings.TrimSpace(s))
		if err != nil {
			return Allowlist{}, fmt.Errorf("--sandbox-net allow: bad entry %q: %w", clip(s), err)
		}
		if !seen[e] {
			seen[e] = true
			a.entries = append(a.entries, e)
		}
	}
	return a, nil
}

// clip keeps an error message about an oversized entry readable.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

func parseEntry(s string) (entry, error) {
	switch {
	case s == "":
		return entry{}, errors.New("empty")
	case len(s) > MaxEntryLen:
		return entry{}, fmt.Errorf("%d characters, at most %d", len(s), MaxEntryLen)
	}
	host, port, hasPort, err := splitEntry(s)
	if err != nil {
		return entry{}, err
	}
	e := entry{}
	if hasPort {
		if e.port, err = parsePort(port); err != nil {
			return entry{}, err
		}
	}
	if strings.HasPrefix(host, "[") {
		addr, err := netip.ParseAddr(strings.Trim(host, "[]"))
		if err != nil || !addr.Is6() || addr.Zone() != "" {
			return entry{}, errors.New("not an IPv6 address between the brackets")
		}
		e.host, e.ip = addr.Unmap().String(), true
		return e, nil
	}
	if addr, err := netip.ParseAddr(host); err == nil && addr.Is4() {
		e.host, e.ip = addr.String(), true
		return e, nil
	}
	name, wildcard := strings.CutPrefix(host, "*.")
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	if err := checkName(name); err != nil {
		return entry{}, err
	}
	e.host, e.wildcard = name, wildcard
	return e, nil
}

// splitEntry cuts an entry into its host and its port, if it names one.
func splitEntry(s string) (host, port string, hasPort bool, err error) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", false, errors.New("no closing bracket")
		}
		host, rest := s[:end+1], s[end+1:]
		if rest == "" {
			return host, "", false, nil
		}
		if port, ok := strings.CutPrefix(rest, ":"); ok {
			return host, port, true, nil
		}
		return "", "", false, errors.New("after ] comes :PORT or nothing")
	}
	switch strings.Count(s, ":") {
	case 0:
		return s, "", false, nil
	case 1:
		host, port, _ = strings.Cut(s, ":")
		return host, port, true, nil
	}
	return "", "", false, errors.New("an IPv6 address goes between brackets: [2001:db8::1]:443")
}

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || s[0] == '+' || s[0] == '-' {
		return 0, fmt.Errorf("port %q: a port is a number from 1 to 65535", clip(s))
	}
	return n, nil
}

// checkName accepts a DNS host name: dot-separated labels of letters, digits, hyphens and
// underscores, none empty, none longer than 63 or starting or ending with a hyphen. A name
// of numbers only (10.0.0) is a mistyped address, not a name.
func checkName(name string) error {
	if name == "" {
		return errors.New("no host")
	}
	labels := strings.Split(name, ".")
	for _, l := range labels {
		if err := checkLabel(l); err != nil {
			return err
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return errors.New("not an IPv4 address, and a host name does not end in a number")
	}
	return nil
}

func checkLabel(l string) error {
	switch {
	case l == "":
		return errors.New("an empty label (two dots, or a dot at the start)")
	case len(l) > 63:
		return errors.New("a label longer than 63 characters")
	case l[0] == '-' || l[len(l)-1] == '-':
		return fmt.Errorf("label %q starts or ends with a hyphen", l)
	}
	for _, c := range l {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			if c == '*' {
				return errors.New("a wildcard is a whole first label: *.example.com")
			}
			return fmt.Errorf("%q is not allowed in a host name", c)
		}
	}
	return nil
}

// Allows says whether the agent may reach host on port. The host is read as a client would
// send it: any case, with or without a trailing dot, an IPv6 address with or without
// brackets. Anything that is not a valid host is not allowed.
func (a Allowlist) Allows(host string, port int) bool {
	if port < 1 || port > 65535 {
		return false
	}
	h, ip, ok := canonicalHost(host)
	if !ok {
		return false
	}
	for _, e := range a.entries {
		if e.port != 0 && e.port != port || e.ip != ip {
			continue
		}
		if e.wildcard && strings.HasSuffix(h, "."+e.host) || !e.wildcard && e.host == h {
			return true
		}
	}
	return false
}

// canonicalHost is host as the entries spell it, whether it is an IP address, and whether it
// is a host at all.
func canonicalHost(host string) (h string, ip, ok bool) {
	if len(host) > MaxEntryLen {
		return "", false, false
	}
	bare := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if addr, err := netip.ParseAddr(bare); err == nil {
		return addr.Unmap().String(), true, addr.Zone() == ""
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	return name, false, checkName(name) == nil
}

// String is the allowlist as ParseAllow reads it back: its entries in canonical form,
// comma-separated, in the order given.
func (a Allowlist) String() string {
	parts := make([]string, len(a.entries))
	for i, e := range a.entries {
		parts[i] = e.String()
	}
	return strings.Join(parts, ",")
}

func (e entry) String() string {
	h := e.host
	switch {
	case e.wildcard:
		h = "*." + h
	case e.ip && strings.Contains(h, ":"):
		h = "[" + h + "]"
	}
	if e.port != 0 {
		h += ":" + strconv.Itoa(e.port)
	}
	return h
}

// Len is the number of entries.
func (a Allowlist) Len() int { return len(a.entries) }
