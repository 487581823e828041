package ralph

import (
	"errors"
	"fmt"
	"strings"

	"github.com/swarm-dev/swarm/ralph/config"
)

// SupervisionFlags are the supervision settings given on the command line; nil means the flag
// was not given, so it does not override the project file.
type SupervisionFlags struct {
	MaxFailures           *int
	RetryBackoffSeconds   *int
	HangTimeoutSeconds    *int
	IterationTimeout      *int
	TestCommand           *string
	RollbackOnTestFailure *bool
	Push                  *bool
	Webhook               *string
	NoSupervision         bool
}

// ResolveSupervision is the supervision policy for a loop started where cfg was loaded: the
// defaults, overridden by the [regent] tables of the user's config.toml and of the project's
// swarm.toml (cfg.Supervision), overridden by the flags that were given. The result is checked
// as a whole, since a rule may combine settings from several places (rollback switched on in a
// file, the test command given as a flag).
func ResolveSupervision(cfg *config.Config, flags SupervisionFlags) (SupervisionConfig, error) {
	rc := DefaultSupervision()
	rf, err := cfg.Supervision()
	if err != nil {
		return SupervisionConfig{}, err
	}
	override(&rc.Enabled, rf.Enabled)
	override(&rc.RollbackOnTestFailure, rf.RollbackOnTestFailure)
	override(&rc.TestCommand, rf.TestCommand)
	override(&rc.MaxFailures, rf.MaxRetries)
	override(&rc.RetryBackoffSeconds, rf.RetryBackoffSeconds)
	override(&rc.HangTimeoutSeconds, rf.HangTimeoutSeconds)
	override(&rc.MaxFailures, flags.MaxFailures)
	override(&rc.RetryBackoffSeconds, flags.RetryBackoffSeconds)
	override(&rc.HangTimeoutSeconds, flags.HangTimeoutSeconds)
	override(&rc.IterationTimeout, flags.IterationTimeout)
	override(&rc.TestCommand, flags.TestCommand)
	override(&rc.RollbackOnTestFailure, flags.RollbackOnTestFailure)
	override(&rc.Push, flags.Push)
	override(&rc.Webhook, flags.Webhook)
	if flags.NoSupervision {
		rc.Enabled = false
	}
	if err := rc.check(); err != nil {
		return SupervisionConfig{}, err
	}
	return rc, nil
}

func override[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

// check rejects a policy that cannot work, wherever its settings came from.
func (rc SupervisionConfig) check() error {
	switch {
	case rc.MaxFailures < 1:
		return errors.New("--max-failures must be at least 1")
	case rc.RetryBackoffSeconds < 0:
		return errors.New("--retry-backoff must not be negative")
	case rc.HangTimeoutSeconds < 0:
		return errors.New("--hang-timeout must not be negative")
	case rc.IterationTimeout < 0:
		return errors.New("--iteration-timeout must not be negative")
	case rc.RollbackOnTestFailure && strings.TrimSpace(rc.TestCommand) == "":
		return errors.New("--rollback-on-test-failure needs --test-command (or test_command in swarm.toml)")
	case rc.Push && !rc.RollbackOnTestFailure:
		return errors.New("--push needs --rollback-on-test-failure")
	case rc.Webhook != "" && !strings.HasPrefix(rc.Webhook, "http://") && !strings.HasPrefix(rc.Webhook, "https://"):
		return fmt.Errorf("invalid --webhook '%s' (expected an http:// or https:// URL)", rc.Webhook)
	}
	return nil
}
