package swarm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/swarm-dev/swarm/ralph/sandbox"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
)

// How a worker's sandbox is shown: the mark of an agent that runs unconfined although it was
// to be confined (ls, status, the dashboard), the line of ralph status, and the connections
// its egress proxy refused. The record says what spawn decided; the refused connections are
// the agent's own doing, so what they name (a host is whatever the agent asked for) is shown
// escaped and bounded.

// wordUnsandboxed marks a worker whose agent runs unconfined although it was to be confined
// (its sandbox's Kind is "none").
const wordUnsandboxed = "unsandboxed"

// unsandboxed reports whether sb is the record of an agent that should have been confined
// and is not.
func unsandboxed(sb *state.SandboxInfo) bool { return sb != nil && sb.Kind == "none" }

// statusCell is a state in a table's STATUS cell, marked for an agent that runs unsandboxed:
// "running (unsandboxed)", "blocked (dialog: trust-folder, unsandboxed)". The mark is in the
// one cell a narrow terminal never cuts.
func statusCell(sw stateWord, sb *state.SandboxInfo) string {
	if !unsandboxed(sb) {
		return sw.String()
	}
	if sw.detail == "" {
		return sw.word + " (" + wordUnsandboxed + ")"
	}
	return sw.word + " (" + sw.detail + ", " + wordUnsandboxed + ")"
}

// sandboxText is a worker's sandbox as ralph status says it: "bwrap (net: allow
// api.anthropic.com:443)", "none — unsandboxed: bubblewrap is not installed (...)", "off".
func sandboxText(sb *state.SandboxInfo) string {
	switch {
	case sb == nil || sb.Kind == "":
		return "off"
	case unsandboxed(sb):
		why := screen.Printable(sb.Why, maxShownLine)
		if why == "" {
			return "none — " + wordUnsandboxed
		}
		return "none — " + wordUnsandboxed + ": " + why
	}
	net := sb.Net
	if net == "" {
		net = sandbox.NetOpen
	}
	if net == sandbox.NetAllow && len(sb.Allow) > 0 {
		net += " " + strings.Join(sb.Allow, ", ")
	}
	return screen.Printable(sb.Kind+" (net: "+net+")", maxShownLine)
}

// egressView is what a confined agent's egress proxy refused: how many connections (at least
// that many when the log is longer than what is read of it), and the latest few, latest first.
type egressView struct {
	Count   int             `json:"count"`
	AtLeast bool            `json:"at_least,omitempty"`
	Latest  []refusedRecord `json:"latest"`
}

// refusedRecord is one line of the egress log: a connection the proxy refused.
type refusedRecord struct {
	Time string          `json:"time"`
	Host string          `json:"host"`
	Port json.RawMessage `json:"port,omitempty"`
	Why  string          `json:"why,omitempty"`
}

// The egress log is read from its end, egressTail bytes at most: a busy agent can make it
// long, and what is shown is its count and its last lines.
const (
	egressTail   = 256 << 10
	egressLatest = 3
)

// readEgress reads the refused connections of the egress log at path; nil when there is none
// (or it cannot be read).
func readEgress(path string) *egressView {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	from := max(fi.Size()-egressTail, 0)
	data, err := io.ReadAll(io.NewSectionReader(f, from, fi.Size()-from))
	if err != nil {
		return nil
	}
	return egressOf(data, from > 0)
}

// egressOf is the view of the end of an egress log; cut says it begins in the middle of the
// log, its first line torn.
func egressOf(data []byte, cut bool) *egressView {
	if cut {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		} else {
			data = nil
		}
	}
	v := &egressView{AtLeast: cut, Latest: []refusedRecord{}}
	lines := bytes.Split(data, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		line := bytes.TrimSpace(lines[i])
		if len(line) == 0 {
			continue
		}
		v.Count++
		var r refusedRecord
		if len(v.Latest) < egressLatest && json.Unmarshal(line, &r) == nil && r.Host != "" {
			v.Latest = append(v.Latest, r.shown())
		}
	}
	return v
}

// shown is the record made safe to print: the host is the agent's choice.
func (r refusedRecord) shown() refusedRecord {
	r.Time, r.Host, r.Why = screen.Printable(r.Time, 40), screen.Printable(r.Host, 100), screen.Printable(r.Why, 200)
	if _, err := strconv.ParseUint(string(r.Port), 10, 16); err != nil {
		var s string
		if json.Unmarshal(r.Port, &s) == nil {
			if _, err := strconv.ParseUint(s, 10, 16); err == nil {
				r.Port = json.RawMessage(s)
				return r
			}
		}
		r.Port = nil
	}
	return r
}

// address is where the connection went: "host:port", or the host alone.
func (r refusedRecord) address() string {
	if len(r.Port) == 0 {
		return r.Host
	}
	return r.Host + ":" + string(r.Port)
}

// egressText is the refused connections in one line: "3 (latest: a.example:443, b:80)".
func egressText(v *egressView) string {
	count := strconv.Itoa(v.Count)
	if v.AtLeast {
		count = "at least " + count
	}
	if len(v.Latest) == 0 {
		return count
	}
	addrs := make([]string, len(v.Latest))
	for i, r := range v.Latest {
		addrs[i] = r.address()
	}
	return fmt.Sprintf("%s (latest: %s)", count, strings.Join(addrs, ", "))
}

// printSandboxStatus writes ralph status's lines of the worker's sandbox: how its agent is
// confined (when the worker has a record to tell it), and what its egress proxy refused.
func printSandboxStatus(out io.Writer, v loopView) {
	if v.recorded {
		fmt.Fprintf(out, "Sandbox: %s\n", sandboxText(v.Sandbox))
	}
	if v.RefusedConnections != nil {
		fmt.Fprintf(out, "Refused connections: %s\n", egressText(v.RefusedConnections))
	}
}
