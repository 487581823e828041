package main

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/swarm-dev/swarm/ralph/proc"
)

// Finding a host's sshd processes and the script's SSH masters by their connections. Both
// retitle themselves (setproctitle), which overwrites the environment /proc shows, so no
// variable of theirs can be read to tell whose they are; the TCP sockets they hold can.

// tcpSocket is one TCP socket's two ends.
type tcpSocket struct{ local, remote netip.AddrPort }

// parseProcNetTCP reads the IPv4 sockets of a /proc/net/tcp listing, by inode.
func parseProcNetTCP(listing string) map[string]tcpSocket {
	out := map[string]tcpSocket{}
	sc := bufio.NewScanner(strings.NewReader(listing))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] == "sl" {
			continue
		}
		local, ok1 := parseHexAddrPort(f[1])
		remote, ok2 := parseHexAddrPort(f[2])
		if ok1 && ok2 && f[9] != "0" {
			out[f[9]] = tcpSocket{local, remote}
		}
	}
	return out
}

// parseHexAddrPort reads "0100007F:1F90": the address as the kernel holds it in memory (in the
// machine's byte order), the port as a number.
func parseHexAddrPort(s string) (netip.AddrPort, bool) {
	a, p, ok := strings.Cut(s, ":")
	raw, err := hex.DecodeString(a)
	port, perr := strconv.ParseUint(p, 16, 16)
	if !ok || err != nil || perr != nil || len(raw) != 4 {
		return netip.AddrPort{}, false
	}
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], binary.BigEndian.Uint32(raw))
	return netip.AddrPortFrom(netip.AddrFrom4(b), uint16(port)), true
}

// processesHolding lists the processes among pids (all when nil) whose program's name starts
// with program and that hold a TCP socket of the test's network namespace matching want.
func processesHolding(pids []int, program string, want func(tcpSocket) bool) []int {
	data, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return nil
	}
	sockets := parseProcNetTCP(string(data))
	if pids == nil {
		pids = proc.PIDs()
	}
	var out []int
	for _, pid := range pids {
		if !runsProgram(pid, program) {
			continue
		}
		for _, inode := range socketInodes(pid) {
			if s, ok := sockets[inode]; ok && want(s) {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

// runsProgram tells whether pid's executable's name starts with program (sshd also stands for
// the sshd-session and sshd-auth of newer OpenSSH).
func runsProgram(pid int, program string) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return err == nil && strings.HasPrefix(filepath.Base(exe), program)
}

// socketInodes lists the inodes of the sockets pid holds.
func socketInodes(pid int) []string {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if inode, ok := strings.CutPrefix(target, "socket:["); err == nil && ok {
			out = append(out, strings.TrimSuffix(inode, "]"))
		}
	}
	return out
}

// isMuxMaster tells an ssh master connection by its title ("ssh: CONTROLPATH [mux]").
func isMuxMaster(pid int) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	title := strings.TrimRight(strings.ReplaceAll(string(cmdline), "\x00", " "), " ")
	return strings.HasPrefix(title, "ssh: ") && strings.HasSuffix(title, "[mux]")
}
