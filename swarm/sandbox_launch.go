package swarm

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/sandbox"
)

// The launcher of a confined agent: the script that starts a worker's agent runs it in front
// of the agent's command (see sandbox.LaunchArgv). It gathers the facts of this start, starts
// the agent inside bubblewrap and waits for it, passing on signals, and ends with the agent's
// exit code. A sandbox that cannot be made ends with ExitSandbox and says why: the agent never
// runs unconfined instead.

// ExitSandbox is the exit code of a start whose sandbox could not be made.
const ExitSandbox = 125

func sandboxLaunchCommand() *cli.Command {
	return &cli.Command{
		Name: sandbox.LaunchCommand, Hidden: true, SkipFlagParsing: true,
		Usage:     "run an agent inside its sandbox (started by the worker's script)",
		ArgsUsage: "[--workdir DIR] [--in-place] [--repo DIR] [--state DIR] [--box DIR] [--net NET] [--egress-log FILE] -- COMMAND...",
		Action: func(c *cli.Context) error {
			o, err := sandbox.ParseLaunch(c.Args().Slice())
			if err != nil {
				fmt.Fprintf(os.Stderr, "swarm: sandbox: %v\n", err)
				return exitCode(ExitSandbox)
			}
			return exitCode(runSandboxed(o, os.Stderr))
		},
	}
}

// runSandboxed starts o's agent inside bubblewrap and returns its exit code.
func runSandboxed(o sandbox.Launch, say io.Writer) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(say, "swarm: sandbox: "+format+"; the agent was not started\n", args...)
		return ExitSandbox
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return fail("bubblewrap is not installed (apt-get install bubblewrap)")
	}
	facts, err := launchFacts(o)
	if err != nil {
		return fail("%v", err)
	}
	egress, err := startEgress(o, &facts)
	if err != nil {
		return fail("%v", err)
	}
	defer egress.close()
	if err := makeCaches(o.Cache); err != nil {
		return fail("%v", err)
	}
	plan := sandbox.Build(facts)
	files, err := openCopies(plan.Copies)
	if err != nil {
		return fail("%v", err)
	}
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return fail("%v", err)
	}
	files = append(files, infoW)
	args := append(append([]string{}, plan.Args...), "--")
	args = append(args, sandbox.Command(facts.FirstFD+len(plan.Copies), egress.wrap(o.Argv))...)
	cmd := exec.Command(bwrap, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = os.Stdin, os.Stdout, os.Stderr, files
	sigs := make(chan os.Signal, 8)
	// Caught, not ignored: an ignored signal would stay ignored in the agent too.
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		return fail("cannot start bubblewrap: %v", err)
	}
	for _, f := range files {
		f.Close()
	}
	started := make(chan bool, 1)
	go func() { started <- childStarted(infoR) }()
	go passSignals(sigs, cmd.Process)
	code := waitCode(cmd.Wait())
	if !<-started {
		return fail("bubblewrap could not make the sandbox (its message is above)")
	}
	return code
}

// childStarted reports whether the command inside said the sandbox is made (see
// sandbox.Command).
func childStarted(r io.ReadCloser) bool {
	defer r.Close()
	word, _ := io.ReadAll(io.LimitReader(r, 16))
	return string(word) == "up"
}

// passSignals hands the signals this launcher gets on to bubblewrap, which passes them on to
// the agent (a signal for the whole process group reaches them all anyway).
func passSignals(sigs <-chan os.Signal, p *os.Process) {
	for s := range sigs {
		_ = p.Signal(s)
	}
}

// waitCode is the exit code of a process Wait ended with err: 128+N for a signal.
func waitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return ExitSandbox
}

// openCopies opens the files the agent gets copies of, on the descriptors the plan gave them.
func openCopies(copies []sandbox.Copy) ([]*os.File, error) {
	var files []*os.File
	for _, c := range copies {
		f, err := os.Open(c.Src)
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, fmt.Errorf("cannot read %s: %v", c.Src, err)
		}
		files = append(files, f)
	}
	return files, nil
}

// launchFacts gathers what the plan is made of, from this machine and o.
func launchFacts(o sandbox.Launch) (sandbox.Facts, error) {
	home, _ := os.UserHomeDir()
	var names []string
	if entries, err := os.ReadDir(home); err == nil {
		for _, e := range entries {
			names = append(names, e.Name())
		}
	}
	exe, err := exec.LookPath(o.Argv[0])
	if err != nil {
		// Said as the script would: the agent's command is missing, not the sandbox.
		return sandbox.Facts{}, fmt.Errorf("executable not found: %s", o.Argv[0])
	}
	exe, _ = filepath.Abs(exe)
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		real = exe
	}
	self, _ := os.Executable()
	tmuxDir := os.Getenv("TMUX_TMPDIR")
	if tmuxDir == "" {
		tmuxDir = "/tmp"
	}
	return sandbox.Facts{Home: home, WorkDir: o.WorkDir, InPlace: o.InPlace, Repo: o.Repo, StateDir: o.StateDir,
		Box: o.Box, TmuxDir: filepath.Join(tmuxDir, fmt.Sprintf("tmux-%d", os.Getuid())), Argv0: exe, Real: real, Self: self,
		Path: filepath.SplitList(os.Getenv("PATH")), Getenv: os.Getenv, Stat: statPath, HomeEntries: names,
		Net: o.Net, Cache: o.Cache, FirstFD: 3}, nil
}

// makeCaches makes the worker's own cache directories the sandbox binds over the home's.
func makeCaches(cache string) error {
	if cache == "" {
		return nil
	}
	for _, rel := range sandbox.Caches {
		if err := os.MkdirAll(sandbox.CacheDir(cache, rel), 0o700); err != nil {
			return fmt.Errorf("cannot make the agent's cache: %v", err)
		}
	}
	return nil
}

// statPath says whether path exists, and whether it is a directory (links followed).
func statPath(path string) (bool, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, false
	}
	return true, fi.IsDir()
}
