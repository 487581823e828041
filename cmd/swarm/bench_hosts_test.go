package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestHostFigures measures the fleet over real SSH against the same work on this machine, in
// one run (testdata/bench/*.txtar, make bench): `swarm ls --format json` across 5 hosts x 20
// workers against 100 local workers, and 50 loops spawned over 5 hosts against 50 spawned
// here. It needs sshd, and runs only when SWARM_BENCH_HOSTS=1: it takes a minute or two.
func TestHostFigures(t *testing.T) {
	if os.Getenv("SWARM_BENCH_HOSTS") != "1" {
		t.Skip("set SWARM_BENCH_HOSTS=1 (make bench) to measure the fleet over SSH")
	}
	t.Cleanup(func() { _ = os.Remove(fmt.Sprintf("/tmp/swarm-ssh-%d", os.Getuid())) })
	cmds := scriptCommands()
	cmds["benchpair"] = plain("benchpair", cmdBenchPair)
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("..", "..", "testdata", "bench"),
		WorkdirRoot:         t.TempDir(),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup:               setupScript,
		Cmds:                cmds,
		Condition:           scriptCondition,
	})
}

// cmdBenchPair times two commands in turn, A B A B ..., after a warm-up of each, and prints
// each one's median wall time and CPU time (of the processes it waited for: this machine's
// side) and the median of the pairs' ratios. $BENCH_RUN is the run's number in both, for
// names that must differ from run to run. -max-ms fails when A's median is above it.
//
//	benchpair [-n N] [-max-ms MS] LABEL A... -vs B...
func cmdBenchPair(ts *testscript.TestScript, args []string) {
	n, maxMS := 10, 0.0
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		v, err := strconv.ParseFloat(args[1], 64)
		if err != nil {
			ts.Fatalf("benchpair: %s %q", args[0], args[1])
		}
		switch args[0] {
		case "-n":
			n = int(v)
		case "-max-ms":
			maxMS = v
		}
		args = args[2:]
	}
	i := slices.Index(args, "-vs")
	if len(args) < 2 || i < 2 || i == len(args)-1 {
		ts.Fatalf("usage: benchpair [-n N] [-max-ms MS] LABEL A... -vs B...")
	}
	label, a, b := args[0], args[1:i], args[i+1:]
	var wa, wb, ca, cb, ratios []float64
	for run := 0; run <= n; run++ {
		w1, c1 := timeOnce(ts, a, run)
		w2, c2 := timeOnce(ts, b, run)
		if run == 0 {
			continue // the warm-up
		}
		wa, wb, ca, cb = append(wa, w1), append(wb, w2), append(ca, c1), append(cb, c2)
		ratios = append(ratios, w1/w2)
	}
	line := fmt.Sprintf("%s: A %.1f ms wall, %.1f ms CPU here; B %.1f ms wall, %.1f ms CPU; A/B wall %.2f, CPU %.2f (median of %d)",
		label, median(wa), median(ca), median(wb), median(cb), median(ratios), median(ca)/median(cb), n)
	fmt.Fprintln(ts.Stdout(), line)
	ts.Logf("%s", line)
	if maxMS > 0 && median(wa) > maxMS {
		ts.Fatalf("%s: A's median %.1f ms is over %.0f ms", label, median(wa), maxMS)
	}
}

// timeOnce runs a command of the script's environment and returns its wall and CPU times, ms.
func timeOnce(ts *testscript.TestScript, argv []string, run int) (wall, cpu float64) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ()[:0:0], benchScriptEnv(ts)...)
	cmd.Env = append(cmd.Env, "BENCH_RUN="+strconv.Itoa(run))
	cmd.Dir = ts.MkAbs(".")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		ts.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out.String())
	}
	wall = float64(time.Since(start)) / float64(time.Millisecond)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
	return wall, cpu
}

// benchScriptEnv is the script's whole environment.
func benchScriptEnv(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "SWARM_DIR", "SWARM_TMUX_SOCKET", "HOME", "TMPDIR", "TMUX_TMPDIR",
		"SWARM_SSH_COMMAND", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
		"GIT_CONFIG_NOSYSTEM", "WORK", "HERE"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	return append(env, "TMUX=")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
