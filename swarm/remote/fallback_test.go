package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"
)

// Where the master opens no session, Run goes through the ssh client process, which makes a
// connection of its own when the master will not serve it either.

// TestRunWithoutTheMaster: a master gone (its socket removed, or left behind) opens no
// session; Run starts a new master and goes through it.
func TestRunWithoutTheMaster(t *testing.T) {
	c := startSSHD(t).conn(t)
	for _, leftBehind := range []bool{false, true} {
		stopMaster(t, c)
		if leftBehind {
			l, err := net.ListenUnix("unix", &net.UnixAddr{Name: c.control, Net: "unix"})
			if err != nil {
				t.Fatal(err)
			}
			l.SetUnlinkOnClose(false)
			l.Close()
		}
		_, err := runShell(context.Background(), c.runMux, "exit 0", Streams{})
		if !errors.Is(err, errNoMuxSession) {
			t.Fatalf("left behind %v: err = %v, want no session", leftBehind, err)
		}
		var out bytes.Buffer
		code, err := c.Run(context.Background(), []string{"-c", "echo here; exit 4"}, Streams{Stdout: &out})
		if err != nil || code != 4 || out.String() != "here\n" {
			t.Fatalf("left behind %v: Run: code %d, err %v, out %q", leftBehind, code, err, out.String())
		}
	}
}

// TestRunPastADeadMaster: something answers on the socket but does not speak as a master
// (it closes at once, or speaks another version): Run goes through ssh, which connects on
// its own.
func TestRunPastADeadMaster(t *testing.T) {
	s := startSSHD(t)
	c := s.conn(t)
	stopMaster(t, c)
	for _, version := range []uint32{0, 3} {
		l, err := net.ListenUnix("unix", &net.UnixAddr{Name: c.control, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				conn, err := l.AcceptUnix()
				if err != nil {
					return
				}
				if version != 0 {
					var p muxPacket
					p.u32(muxHello)
					p.u32(version)
					_ = (&muxClient{conn: conn}).send(p)
				}
				conn.Close()
			}
		}()
		var out bytes.Buffer
		var errs bytes.Buffer
		code, err := c.Run(context.Background(), []string{"-c", "echo here; exit 4"}, Streams{Stdout: &out, Stderr: &errs})
		l.Close()
		if err != nil || code != 4 || out.String() != "here\n" {
			t.Fatalf("version %d: Run: code %d, err %v, out %q, stderr %q", version, code, err, out.String(), errs.String())
		}
	}
}

// TestRunManyAtOnce: 20 commands at once, past sshd's 10 sessions on one connection. The
// master refuses the rest, and they go through ssh processes.
func TestRunManyAtOnce(t *testing.T) {
	const n = 20
	c := startSSHD(t).conn(t)
	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	script := func(i int) string {
		return fmt.Sprintf("touch %s; while [ ! -e %s ]; do sleep 0.05; done; echo %d",
			words.ShellWord(filepath.Join(dir, fmt.Sprintf("started.%d", i))), words.ShellWord(release), i)
	}
	started := func() int {
		names, _ := filepath.Glob(filepath.Join(dir, "started.*"))
		return len(names)
	}
	// Through the master alone, at most 10 open; the others are told why.
	var refused []error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := runShell(context.Background(), c.runMux, script(i), Streams{}); err != nil {
				mu.Lock()
				refused = append(refused, err)
				mu.Unlock()
			}
		}()
	}
	until(t, 20*time.Second, "10 sessions open and 10 refused", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return started() == 10 && len(refused) == n-10
	})
	for _, err := range refused {
		if !errors.Is(err, errNoMuxSession) || !strings.Contains(err.Error(), "refused by peer") {
			t.Errorf("err = %v, want the session refused by the peer", err)
		}
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	clear := func() {
		names, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, name := range names {
			os.Remove(name)
		}
	}
	clear()
	// Through Run, all 20 run at once and end well.
	outs := make([]bytes.Buffer, n)
	errs := make([]error, n)
	codes := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], errs[i] = c.Run(context.Background(), []string{"-c", script(i)}, Streams{Stdout: &outs[i]})
		}()
	}
	until(t, 60*time.Second, "20 commands running", func() bool { return started() == n })
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || codes[i] != 0 || outs[i].String() != fmt.Sprintf("%d\n", i) {
			t.Errorf("command %d: code %d, err %v, out %q", i, codes[i], errs[i], outs[i].String())
		}
	}
}

// BenchmarkRunTrue runs `true` on the host through the master's session and through the ssh
// client process (go test -run NONE -bench RunTrue -benchtime 50x ./swarm/remote), with the
// processor time this side spends on each (its own and its ssh processes'): the master and
// sshd are not counted, the same for both.
func BenchmarkRunTrue(b *testing.B) {
	c := startSSHD(b).conn(b)
	c.Host.Swarm = "true"
	for _, way := range []struct {
		name string
		run  runner
	}{{"mux", c.runMux}, {"ssh", c.runSSH}} {
		b.Run(way.name, func(b *testing.B) {
			before := cpuTime()
			for b.Loop() {
				if code, err := way.run(context.Background(), c.commandLine(nil), Streams{}); err != nil || code != 0 {
					b.Fatalf("code %d, err %v", code, err)
				}
			}
			b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// cpuTime is the processor time of this process and of the children it has waited for.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var u syscall.Rusage
		_ = syscall.Getrusage(who, &u)
		total += time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	return total
}
