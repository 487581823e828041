package remote

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/swarm-dev/swarm/state"
)

// A host is recorded as $SWARM_DIR/hosts/NAME.json when it is added, and what was last seen
// of it (when, its workers, those spawned from here since) beside it as NAME.seen.json: a
// host that does not answer is shown from that, never as if its workers had stopped.

// Host is one machine added with `swarm host add`.
type Host struct {
	Name string `json:"name"`
	// Address is where it is, as given: [user@]host[:port].
	Address string `json:"address"`
	// Swarm is the swarm command on the host: "swarm" (found on its PATH) or a path.
	Swarm string `json:"swarm"`
	Added string `json:"added"`
	// Persist is how long, in seconds, the connection stays open after its last use; 0 is
	// DefaultPersist.
	Persist int    `json:"persist,omitempty"`
	OS      string `json:"os,omitempty"`
	Arch    string `json:"arch,omitempty"`
	Version string `json:"version,omitempty"`
}

// LocalName is how the machine swarm runs on is named beside its hosts; no host may take it.
const LocalName = "local"

var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$`)

// CheckName says why name cannot name a host, nil when it can.
func CheckName(name string) error {
	if !validName.MatchString(name) {
		return fmt.Errorf("invalid host name '%s' (letters, digits, '.', '-', '_'; at most 32; starting with a letter or digit)", name)
	}
	if name == LocalName {
		return fmt.Errorf("'%s' names this machine; choose another host name", LocalName)
	}
	return nil
}

// Endpoint is an address split for ssh: the destination ([user@]host) and the port ("" for
// ssh's default or the one ~/.ssh/config gives).
type Endpoint struct {
	Dest string
	Port string
}

// ParseAddress reads [user@]host[:port], with an IPv6 host in brackets ([::1]:2222).
func ParseAddress(addr string) (Endpoint, error) {
	bad := func(why string) (Endpoint, error) {
		return Endpoint{}, fmt.Errorf("invalid address '%s': %s (expected [user@]host[:port])", addr, why)
	}
	if addr == "" || strings.ContainsAny(addr, " \t\n'\"`$;|&<>\\") || strings.HasPrefix(addr, "-") {
		return bad("empty, or a character an address does not have")
	}
	user, hostport := "", addr
	if i := strings.LastIndex(addr, "@"); i >= 0 {
		user, hostport = addr[:i], addr[i+1:]
		if user == "" {
			return bad("no user before '@'")
		}
	}
	host, port := hostport, ""
	if strings.HasPrefix(hostport, "[") || strings.Count(hostport, ":") == 1 {
		h, p, err := net.SplitHostPort(hostport)
		if err != nil {
			if !strings.HasPrefix(hostport, "[") {
				return bad(err.Error())
			}
			h, p = strings.Trim(hostport, "[]"), ""
		}
		host, port = h, p
	}
	if host == "" {
		return bad("no host")
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return bad("port must be a number from 1 to 65535")
		}
	}
	dest := host
	if user != "" {
		dest = user + "@" + host
	}
	return Endpoint{Dest: dest, Port: port}, nil
}

// Registry is the hosts recorded in one state directory.
type Registry struct{ dir string }

// RegistryOf is the registry of the state directory at root.
func RegistryOf(root string) Registry { return Registry{dir: filepath.Join(root, "hosts")} }

// ErrNoHost is returned for a host name that was never added.
var ErrNoHost = errors.New("no such host")

func (r Registry) path(name, suffix string) string { return filepath.Join(r.dir, name+suffix) }

// Get reads the host name.
func (r Registry) Get(name string) (Host, error) {
	var h Host
	if CheckName(name) != nil {
		return h, fmt.Errorf("%w '%s' (see swarm host ls)", ErrNoHost, name)
	}
	err := state.ReadJSON(r.path(name, ".json"), &h)
	if errors.Is(err, os.ErrNotExist) {
		return h, fmt.Errorf("%w '%s' (see swarm host ls; add one with swarm host add NAME ADDRESS)", ErrNoHost, name)
	}
	if err != nil {
		return h, fmt.Errorf("host %s: %w", name, err)
	}
	return h, nil
}

// All reads every host, by name. A record that cannot be read is reported through warn and
// left out.
func (r Registry) All(warn func(error)) []Host {
	files, _ := filepath.Glob(filepath.Join(r.dir, "*.json"))
	var hosts []Host
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if strings.HasSuffix(name, ".seen") {
			continue
		}
		h, err := r.Get(name)
		if err != nil {
			if warn != nil {
				warn(err)
			}
			continue
		}
		hosts = append(hosts, h)
	}
	sort.Slice(hosts, func(i, j int) bool { return hosts[i].Name < hosts[j].Name })
	return hosts
}

// Any says whether any host is recorded, without reading one: the local commands ask it on
// every call.
func (r Registry) Any() bool {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".json") && !strings.HasSuffix(n, ".seen.json") {
			return true
		}
	}
	return false
}

// Put records h, replacing a host of its name.
func (r Registry) Put(h Host) error {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return err
	}
	return state.WriteJSON(r.path(h.Name, ".json"), h)
}

// Remove forgets the host name and what was seen of it.
func (r Registry) Remove(name string) error {
	if _, err := r.Get(name); err != nil {
		return err
	}
	if err := os.Remove(r.path(name, ".json")); err != nil {
		return err
	}
	_ = os.Remove(r.path(name, ".seen.json"))
	_ = os.Remove(r.path(name, ".seen.lock"))
	_ = os.RemoveAll(r.sentDir(name))
	return nil
}
