package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/regent"
)

// What the state directory's Regent costs, from /proc: for scripts that hold it to a figure
// while it waits on something (an agent that never shows its prompt).

// cmdRegentCPU is `regentcpu -max DURATION WINDOW`: the CPU time the Regent (and the children it
// waited for) uses over WINDOW, logged, which must stay under DURATION. The Regent must run, and
// stay the same process, all through the window.
func cmdRegentCPU(ts *testscript.TestScript, args []string) {
	if len(args) != 3 || args[0] != "-max" {
		ts.Fatalf("usage: regentcpu -max DURATION WINDOW")
	}
	max, err := time.ParseDuration(args[1])
	if err != nil {
		ts.Fatalf("bad -max: %v", err)
	}
	window, err := time.ParseDuration(args[2])
	if err != nil {
		ts.Fatalf("bad window: %v", err)
	}
	dir, err := state.Open(ts.Getenv("SWARM_DIR"))
	if err != nil {
		ts.Fatalf("%v", err)
	}
	pid := regent.NewClient(dir).PID()
	if pid == 0 {
		ts.Fatalf("the Regent does not run")
	}
	cpuUnder(ts, fmt.Sprintf("the Regent (pid %d)", pid), pid, window, max)
}

// cmdProcCPU is `proccpu -max DURATION WINDOW PIDFILE`: the CPU time the process whose pid is
// in PIDFILE uses over WINDOW, logged, which must stay under DURATION: a command that waits
// (events --follow, wait --until) costs next to nothing while nothing happens.
func cmdProcCPU(ts *testscript.TestScript, args []string) {
	if len(args) != 4 || args[0] != "-max" {
		ts.Fatalf("usage: proccpu -max DURATION WINDOW PIDFILE")
	}
	max, err1 := time.ParseDuration(args[1])
	window, err2 := time.ParseDuration(args[2])
	if err1 != nil || err2 != nil {
		ts.Fatalf("proccpu: bad durations %q %q", args[1], args[2])
	}
	pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(args[3])))
	if err != nil {
		ts.Fatalf("proccpu: no pid in %s", args[3])
	}
	cpuUnder(ts, fmt.Sprintf("pid %d", pid), pid, window, max)
}

// cpuUnder measures the CPU time process pid (who, in the messages) uses over window, logs
// it with its rate a minute, and fails the script when it is over max. The window is the
// measurement itself, not a wait for something to happen.
func cpuUnder(ts *testscript.TestScript, who string, pid int, window, max time.Duration) {
	before, ok := readCPU(pid)
	if !ok {
		ts.Fatalf("cannot read the CPU of %s", who)
	}
	time.Sleep(window)
	after, ok := readCPU(pid)
	if !ok || after.start != before.start {
		ts.Fatalf("%s ended during the window", who)
	}
	used := after.used() - before.used()
	ts.Logf("%s used %v of CPU over %v (%.2f s a minute)", who, used, window, used.Seconds()*float64(time.Minute)/float64(window))
	if used > max {
		ts.Fatalf("%s used %v of CPU over %v; want under %v", who, used, window, max)
	}
}

// cpuReading is a process's CPU so far: its threads' time on a CPU to the nanosecond
// (/proc/PID/task/*/schedstat), and in clock ticks that of the children it waited for.
type cpuReading struct {
	onCPU    time.Duration
	children time.Duration
	start    string // its start time, to tell it from a later process with its pid
}

func (r cpuReading) used() time.Duration { return r.onCPU + r.children }

func readCPU(pid int) (cpuReading, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpuReading{}, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return cpuReading{}, false
	}
	// Fields after the command name: f[0] is field 3.
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 20 {
		return cpuReading{}, false
	}
	ticks := func(field int) time.Duration {
		v, _ := strconv.ParseUint(f[field-3], 10, 64)
		return time.Duration(v) * 10 * time.Millisecond // USER_HZ is 100 on every Linux build
	}
	r := cpuReading{children: ticks(16) + ticks(17), start: f[19]}
	stats, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // a thread that just ended
		}
		if fs := strings.Fields(string(data)); len(fs) > 0 {
			v, _ := strconv.ParseInt(fs[0], 10, 64)
			r.onCPU += time.Duration(v)
		}
	}
	if r.onCPU == 0 {
		r.onCPU = ticks(14) + ticks(15) // a kernel without schedstat
	}
	return r, true
}
