package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/swarm-dev/swarm/swarm/worker"
)

// Another local user, for scripts about what other users of the machine can and cannot do to
// swarm. Creating one needs root and useradd: scripts that need one say [seconduser] and are
// skipped elsewhere, saying why.

// canAddUser answers [seconduser].
func canAddUser() bool {
	if os.Getuid() != 0 {
		return false
	}
	for _, tool := range []string{"useradd", "userdel"} {
		if _, err := exec.LookPath(tool); err != nil {
			return false
		}
	}
	return true
}

// cmdTempUser creates a local user for the rest of the script, removed when it ends, and puts
// its name in the variable VAR.
func cmdTempUser(ts *testscript.TestScript, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: tempuser VAR")
	}
	name := fmt.Sprintf("swt%d%d", os.Getpid()%100000, serial.Add(1))
	if out, err := exec.Command("useradd", "-M", "-s", "/bin/false", name).CombinedOutput(); err != nil {
		ts.Fatalf("cannot create a second local user: useradd: %v: %s", err, strings.TrimSpace(string(out)))
	}
	ts.Defer(func() {
		// A script that failed half way may leave what it ran as the user running.
		endProcessesOf(name)
		if out, err := exec.Command("userdel", name).CombinedOutput(); err != nil {
			ts.Logf("userdel %s: %v: %s", name, err, out)
		}
	})
	ts.Setenv(args[0], name)
}

// squatRegentName is the name the Regent's socket had in the abstract namespace, derived from
// the state directory alone (and so from what ps shows of swarm's tmux server).
func squatRegentName(stateDir string) string { return "@" + worker.SocketFor(stateDir) + "-regent" }

// squatMain is the program `squatsocket USER`: it becomes USER and binds the name the Regent's
// socket could be predicted to have, then holds it until it is ended.
func squatMain() int {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: squatsocket USER")
		return 2
	}
	u, err := user.Lookup(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := dropTo(uid, gid); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, err := net.Listen("unix", squatRegentName(os.Getenv("SWARM_DIR")))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer ln.Close()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	return 0
}

func dropTo(uid, gid int) error {
	if err := syscall.Setgroups(nil); err != nil {
		return err
	}
	if err := syscall.Setgid(gid); err != nil {
		return err
	}
	return syscall.Setuid(uid)
}

// cmdWaitSquat polls until the name squatsocket binds is bound (by anyone).
func cmdWaitSquat(ts *testscript.TestScript, args []string) {
	want := " " + squatRegentName(ts.Getenv("SWARM_DIR"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile("/proc/net/unix")
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasSuffix(l, want) {
				return
			}
		}
		if time.Now().After(deadline) {
			ts.Fatalf("nothing bound %s after 10s", want[1:])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// endProcessesOf kills the processes that run as the user the script created (all of them
// started by the script: the user did not exist before it) and waits for them to go.
func endProcessesOf(name string) {
	u, err := user.Lookup(name)
	if err != nil {
		return
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		pids := processesOf(u.Uid)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processesOf lists the pids whose real uid is uid.
func processesOf(uid string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(status), "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" && f[1] == uid {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}
