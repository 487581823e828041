package main

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The test hosts' pure decisions: which /30 a host may take, what sshd and the client are told,
// and how the kernel's socket table reads.

func TestSubnetAtCountsThirtiesFromTheRangeStart(t *testing.T) {
	for i, want := range map[int]string{0: "10.213.0.0/30", 1: "10.213.0.4/30", 64: "10.213.1.0/30",
		hostNetCount - 1: "10.213.255.252/30", hostNetCount: "10.213.0.0/30"} {
		if got := subnetAt(i).String(); got != want {
			t.Errorf("subnetAt(%d) = %s, want %s", i, got, want)
		}
	}
}

func TestSubnetCandidatesSkipRoutesInUse(t *testing.T) {
	inUse := []netip.Prefix{netip.MustParsePrefix("10.213.0.4/30"), netip.MustParsePrefix("10.213.0.12/32")}
	if got, want := subnetCandidates(0, 3, inUse), []int{0, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestSubnetCandidatesWrapAround(t *testing.T) {
	if got, want := subnetCandidates(hostNetCount-1, 2, nil), []int{hostNetCount - 1, 0}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestSubnetCandidatesNoneWhenTheRangeIsRouted(t *testing.T) {
	if got := subnetCandidates(5, 3, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}); len(got) != 0 {
		t.Errorf("got %v, want none", got)
	}
}

func TestRoutePrefixesReadDestinations(t *testing.T) {
	listing := `default via 192.0.2.1 dev eth0
192.0.2.0/24 dev eth0 proto kernel scope link src 192.0.2.2
local 127.0.0.1 dev lo table local proto kernel scope host src 127.0.0.1
broadcast 10.213.0.3 dev swh0000 table local proto kernel scope link src 10.213.0.1
blackhole 10.9.0.0/16
`
	var got []string
	for _, p := range routePrefixes(listing) {
		got = append(got, p.String())
	}
	want := []string{"192.0.2.0/24", "127.0.0.1/32", "10.213.0.3/32", "10.9.0.0/16"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestSSHDConfigPutsEveryVariableOnOneSetEnv(t *testing.T) {
	config, err := sshdConfig(sshdSetup{listen: "127.0.0.1:2222", user: "me",
		env: []string{"HOME=/w/h", "GIT_AUTHOR_NAME=swarm test", "TMUX="}})
	if err != nil {
		t.Fatal(err)
	}
	var setenv []string
	for _, l := range strings.Split(config, "\n") {
		if strings.HasPrefix(l, "SetEnv ") {
			setenv = append(setenv, l)
		}
	}
	want := `SetEnv "HOME=/w/h" "GIT_AUTHOR_NAME=swarm test" "TMUX="`
	if len(setenv) != 1 || setenv[0] != want {
		t.Errorf("SetEnv lines %q, want [%q]", setenv, want)
	}
	for _, line := range []string{"ListenAddress 127.0.0.1:2222", "AllowUsers me", "UsePAM no", "StrictModes no", "PasswordAuthentication no"} {
		if !strings.Contains(config, "\n"+line+"\n") {
			t.Errorf("config lacks %q", line)
		}
	}
}

func TestSSHDConfigRefusesWhatItCannotQuote(t *testing.T) {
	for _, kv := range []string{`A=say "hi"`, `A=a\b`, "A=a\nb"} {
		if _, err := sshdConfig(sshdSetup{env: []string{kv}}); err == nil {
			t.Errorf("%q accepted", kv)
		}
	}
}

func TestKnownHostsLineNamesThePortUnlessTwentyTwo(t *testing.T) {
	pub := "ssh-ed25519 AAAAC3Nz host-key-comment\n"
	if got, want := knownHostsLine("127.0.0.1", 40022, pub), "[127.0.0.1]:40022 ssh-ed25519 AAAAC3Nz\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := knownHostsLine("10.213.0.2", 22, pub), "10.213.0.2 ssh-ed25519 AAAAC3Nz\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseProcNetTCPReadsBothEndsByInode(t *testing.T) {
	// The kernel prints the address's four bytes, in network order in memory, as one number.
	local := netip.MustParseAddr("127.0.0.1").As4()
	hexAddr := fmt.Sprintf("%08X", binary.NativeEndian.Uint32(local[:]))
	listing := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: " + hexAddr + ":9C40 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0 100 0 0 10 0\n" +
		"   1: " + hexAddr + ":B228 " + hexAddr + ":9C40 06 00000000:00000000 03:0000065D 00000000     0        0 0 3 0\n"
	got := parseProcNetTCP(listing)
	want := map[string]tcpSocket{"4242": {netip.MustParseAddrPort("127.0.0.1:40000"), netip.MustParseAddrPort("0.0.0.0:0")}}
	if len(got) != 1 || got["4242"] != want["4242"] {
		t.Errorf("got %v, want %v (a socket without an inode is nobody's)", got, want)
	}
}

func TestControlDirsFollowTheScriptsTemporaryDirectory(t *testing.T) {
	short := "/w/.swarm"
	if got := controlDirs(short, "/script/tmp"); !slices.Equal(got, []string{"/w/.swarm/ssh"}) {
		t.Errorf("a short state path keeps its sockets in it: got %v", got)
	}
	long := "/" + strings.Repeat("d", 80) + "/.swarm"
	got := controlDirs(long, "/script/tmp")
	if len(got) != 2 || !strings.HasPrefix(got[1], "/script/tmp/") || filepath.Base(got[0]) != filepath.Base(got[1]) {
		t.Errorf("a long state path's sockets go under a temporary directory, the script's too: got %v", got)
	}
}
