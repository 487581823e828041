package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// A test host with a network of its own: a network namespace joined to the machine by a veth
// pair, each pair on a /30 of its own, so a script can cut the host off the way a cable or a
// route goes away (established connections hang, new ones time out) rather than the way a
// process dies. Making one needs root and `ip netns`: scripts that need it say [netns].

// hostNetRange is where the hosts' /30s come from. Another script, in this test process or in
// another one, may be making a host at the same moment: a /30 is claimed by creating the veth
// named after it (interface names are unique on the machine), not by looking first.
var hostNetRange = netip.MustParsePrefix("10.213.0.0/16")

// hostNetCount is how many /30s hostNetRange holds.
const hostNetCount = 1 << (32 - 16 - 2)

var netnsProbe struct {
	once sync.Once
	ok   bool
}

// canNetns answers [netns]: root, and a network namespace can really be added here.
func canNetns() bool {
	netnsProbe.once.Do(func() {
		if os.Getuid() != 0 {
			return
		}
		if _, err := exec.LookPath("ip"); err != nil {
			return
		}
		name := fmt.Sprintf("swarmtest-probe-%d", os.Getpid())
		if exec.Command("ip", "netns", "add", name).Run() != nil {
			return
		}
		netnsProbe.ok = exec.Command("ip", "netns", "del", name).Run() == nil
	})
	return netnsProbe.ok
}

// hostNet is a host's network namespace and its link to the machine.
type hostNet struct {
	ns      string       // the namespace's name (ip netns)
	outside string       // the veth end on the machine; the other end is eth0 in ns
	index   int          // which /30 of hostNetRange
	subnet  netip.Prefix // the /30: .1 on the machine's end, .2 on the host's
}

// subnetAt is the i-th /30 of hostNetRange.
func subnetAt(i int) netip.Prefix {
	a := hostNetRange.Addr().As4()
	v := binary.BigEndian.Uint32(a[:]) + uint32(i%hostNetCount)*4
	binary.BigEndian.PutUint32(a[:], v)
	return netip.PrefixFrom(netip.AddrFrom4(a), 30)
}

// subnetCandidates lists up to n indexes of /30s, from start on (wrapping around), that overlap
// none of the prefixes the machine routes already.
func subnetCandidates(start, n int, inUse []netip.Prefix) []int {
	var out []int
	for k := 0; k < hostNetCount && len(out) < n; k++ {
		i := (start + k) % hostNetCount
		sub, free := subnetAt(i), true
		for _, p := range inUse {
			if p.Overlaps(sub) {
				free = false
				break
			}
		}
		if free {
			out = append(out, i)
		}
	}
	return out
}

// routePrefixes reads the destinations out of `ip -4 -o route show table all`: the default
// route says nothing about a /30, and a route type (local, broadcast, ...) comes before its
// destination.
func routePrefixes(listing string) []netip.Prefix {
	var out []netip.Prefix
	sc := bufio.NewScanner(strings.NewReader(listing))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 1 && routeTypes[f[0]] {
			f = f[1:]
		}
		if len(f) == 0 || f[0] == "default" {
			continue
		}
		dest := f[0]
		if !strings.Contains(dest, "/") {
			dest += "/32"
		}
		if p, err := netip.ParsePrefix(dest); err == nil {
			out = append(out, p.Masked())
		}
	}
	return out
}

var routeTypes = map[string]bool{"unicast": true, "local": true, "broadcast": true, "multicast": true,
	"anycast": true, "blackhole": true, "unreachable": true, "prohibit": true, "throw": true, "nat": true}

func (n *hostNet) outsideAddr() netip.Addr { return n.subnet.Addr().Next() }
func (n *hostNet) insideAddr() netip.Addr  { return n.subnet.Addr().Next().Next() }

// vethMAC gives both ends fixed, locally administered addresses, so the machine's end can know
// the host's without asking.
func vethMAC(side byte, i int) string {
	return fmt.Sprintf("02:53:57:%02x:%02x:%02x", side, byte(i>>8), byte(i))
}

// newHostNet adds a namespace and claims a /30 for it, trying the candidates from start on.
func newHostNet(start int) (*hostNet, error) {
	n := &hostNet{ns: fmt.Sprintf("swarmtest-%d-%d", os.Getpid(), serial.Add(1))}
	if err := ipCmd("netns", "add", n.ns); err != nil {
		return nil, err
	}
	listing, err := exec.Command("ip", "-4", "-o", "route", "show", "table", "all").Output()
	if err != nil {
		n.remove()
		return nil, fmt.Errorf("ip route: %w", err)
	}
	for _, i := range subnetCandidates(start, 64, routePrefixes(string(listing))) {
		out := fmt.Sprintf("swh%04x", i)
		err := ipCmd("link", "add", out, "address", vethMAC(0, i), "type", "veth",
			"peer", "name", "eth0", "address", vethMAC(1, i), "netns", n.ns)
		if err != nil && strings.Contains(err.Error(), "File exists") {
			continue // another script's
		}
		if err != nil {
			n.remove()
			return nil, err
		}
		n.outside, n.index, n.subnet = out, i, subnetAt(i)
		if err := n.configure(); err != nil {
			n.remove()
			return nil, err
		}
		return n, nil
	}
	n.remove()
	return nil, fmt.Errorf("no free /30 left in %s", hostNetRange)
}

// configure addresses both ends and brings them up. The machine's end knows the host's
// hardware address for good: while the host is cut off, what is sent to it is dropped without
// a word, as on a real network, instead of failing at once because nobody answered ARP.
func (n *hostNet) configure() error {
	bits := strconv.Itoa(n.subnet.Bits())
	steps := [][]string{
		{"addr", "add", n.outsideAddr().String() + "/" + bits, "dev", n.outside},
		{"link", "set", n.outside, "up"},
		{"-n", n.ns, "addr", "add", n.insideAddr().String() + "/" + bits, "dev", "eth0"},
		{"-n", n.ns, "link", "set", "lo", "up"},
		{"-n", n.ns, "link", "set", "eth0", "up"},
		{"neigh", "replace", n.insideAddr().String(), "lladdr", vethMAC(1, n.index), "dev", n.outside, "nud", "permanent"},
	}
	for _, s := range steps {
		if err := ipCmd(s...); err != nil {
			return err
		}
	}
	return nil
}

// cut takes the host's end of the link down. Taking the machine's end down instead would drop
// the machine's route to the /30, and what is sent to the host would leave by the default
// route.
func (n *hostNet) cut() error { return ipCmd("-n", n.ns, "link", "set", "eth0", "down") }

func (n *hostNet) restore() error { return ipCmd("-n", n.ns, "link", "set", "eth0", "up") }

// pids lists the processes inside the namespace.
func (n *hostNet) pids() []int {
	out, _ := exec.Command("ip", "netns", "pids", n.ns).Output()
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// remove deletes the veth pair and the namespace (its processes must be gone first, or the
// namespace outlives its name).
func (n *hostNet) remove() error {
	var errs []error
	if n.outside != "" {
		errs = append(errs, ipCmd("link", "del", n.outside))
	}
	errs = append(errs, ipCmd("netns", "del", n.ns))
	return errors.Join(errs...)
}

// ipCmd runs ip with the arguments; its error says what ip said.
func ipCmd(args ...string) error {
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
