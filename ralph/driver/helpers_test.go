package driver

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/state"
)

// Test helpers the loop's domain tests have too (package ralph).

func code(c int) *int { return &c }

func ptr[T any](v T) *T { return &v }

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// allowForTest records consent to a project file in the user's config directory.
func allowForTest(t *testing.T, path string) {
	t.Helper()
	if _, err := config.Allow(path, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// launchIn prepares a Launch in a temp dir whose worker environment is env.
func launchIn(t *testing.T, env []string, argv ...string) ralph.Launch {
	t.Helper()
	dir := t.TempDir()
	l := ralph.Launch{Argv: argv, EnvFile: filepath.Join(dir, "env.json"), ExitFile: filepath.Join(dir, "exit"),
		Script: filepath.Join(dir, "run.sh"), Wrapper: []string{"/bin/swarm", "__run"}}
	if env != nil {
		if err := state.WriteJSON(l.EnvFile, env); err != nil {
			t.Fatal(err)
		}
	}
	return l
}
