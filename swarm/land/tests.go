package land

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/proc"
)

// testTag is the environment entry every process of a test run in the scratch worktree dir
// carries, so that the next run can end what a run killed half way left running there.
func testTag(dir string) string { return "SWARM_LAND_TEST=" + dir }

// endLeftoverTests ends the processes a killed run's test command left running in the scratch
// worktree dir, before the tree is reset under them.
func endLeftoverTests(dir string) { proc.KillTagged(testTag(dir), 0, 2*time.Second) }

// runTests runs command with sh in dir, its output (stdout and stderr together) written to
// outputPath. failed says how it failed when it did; err is for a command that could not be
// run at all. The shell dies with the land run that started it (a land killed during its test
// leaves no test writing into the scratch worktree the next run resets).
func runTests(dir, command, outputPath string) (failed string, err error) {

	out, err := os.OpenFile(outputPath, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return "", err
	}
	defer out.Close()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, out, out
	cmd.Env = append(os.Environ(), testTag(dir))
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return fmt.Sprintf("tests failed (%s) on the merge", exit.ProcessState), nil
	}
	if err != nil {
		return "", fmt.Errorf("test command: %w", err)
	}
	return "", nil
}

// ConfigTestCommand is the test command the configuration gives a loop started in the
// repository repo ([regent] test_command of swarm.toml or of the user's config.toml); "" when
// none. A project file that names commands the user has not allowed is refused here as it is
// for a loop (config.ErrNotAllowed): landing runs the command just the same.
func ConfigTestCommand(repo string) (string, error) {
	rf, err := config.Load(repo).Supervision()
	if err != nil {
		return "", err
	}
	if rf.TestCommand == nil {
		return "", nil
	}
	return *rf.TestCommand, nil
}
