package sandbox

import (
	"strings"
	"sync"
)

// KindBwrap is the record's word for an agent confined by bubblewrap.
const KindBwrap = "bwrap"

// What the probe found of user namespaces, which bubblewrap needs.
const (
	NamespacesUsable  = "usable"
	NamespacesOff     = "off"
	NamespacesUnknown = "unknown" // not tried (no bubblewrap), or bubblewrap failed otherwise
)

// Support is what the probe found: whether this machine can confine agents, and when it
// cannot, why and what fixes it.
type Support struct {
	// Bwrap is bubblewrap's path, "" when it is not installed.
	Bwrap      string
	Namespaces string
	// Why is why agents cannot be confined here ("" when they can); Fix is what to do about
	// it ("" when nothing is known); Said is bubblewrap's own first line, when it failed.
	Why, Fix, Said string
}

// OK reports whether agents can be confined here.
func (s Support) OK() bool { return s.Why == "" }

// Problem is why agents cannot be confined here, with the fix, in one line ("" when they
// can): "bubblewrap is not installed (apt-get install bubblewrap, or dnf install bubblewrap)".
func (s Support) Problem() string {
	if s.Why == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(s.Why)
	if s.Fix != "" {
		b.WriteString(" (" + s.Fix + ")")
	}
	if s.Said != "" {
		b.WriteString(": " + s.Said)
	}
	return b.String()
}

var (
	probeOnce   sync.Once
	probeResult Support
)

// Probe says why this machine cannot confine agents, with the fix ("" when it can). It is
// asked once per process: the answer does not change while a command runs.
func Probe() string { return Probed().Problem() }

// Probed is the probe's whole answer (see Probe).
func Probed() Support {
	probeOnce.Do(func() { probeResult = probe() })
	return probeResult
}

// versionOf reads `bwrap --version` ("bubblewrap 0.8.0"): the version alone, "" when what it
// said is not one.
func versionOf(said string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(said), "\n")
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return ""
	}
	v := fields[len(fields)-1]
	if len(v) > 32 || v[0] < '0' || v[0] > '9' {
		return ""
	}
	for _, r := range v {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || strings.ContainsRune(".+-~_", r)) {
			return ""
		}
	}
	return v
}
