package ralph

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph/config"
)

// Defaults, then swarm.toml, then the flags that were given; the whole result is checked.
func TestResolveSupervision(t *testing.T) {
	def := DefaultSupervision()
	with := func(fn func(*SupervisionConfig)) SupervisionConfig {
		rc := DefaultSupervision()
		fn(&rc)
		return rc
	}
	file := "[regent]\nenabled = true\nmax_retries = 2\nretry_backoff_seconds = 1\nhang_timeout_seconds = 120\n" +
		"test_command = \"make test\"\nrollback_on_test_failure = true\n"
	cases := []struct {
		name    string
		file    string // "-": no swarm.toml
		flags   SupervisionFlags
		want    SupervisionConfig
		wantErr string
	}{
		{name: "defaults", file: "-", want: def},
		{name: "empty file", file: "", want: def},
		{name: "file over defaults", file: file, want: with(func(rc *SupervisionConfig) {
			rc.MaxFailures, rc.RetryBackoffSeconds, rc.HangTimeoutSeconds = 2, 1, 120
			rc.TestCommand, rc.RollbackOnTestFailure = "make test", true
		})},
		{name: "flags over file", file: file, flags: SupervisionFlags{
			MaxFailures: ptr(7), HangTimeoutSeconds: ptr(99), TestCommand: ptr("true"),
			IterationTimeout: ptr(600), Push: ptr(true), Webhook: ptr("https://hooks.example/x"),
		}, want: with(func(rc *SupervisionConfig) {
			rc.MaxFailures, rc.RetryBackoffSeconds, rc.HangTimeoutSeconds, rc.IterationTimeout = 7, 1, 99, 600
			rc.TestCommand, rc.RollbackOnTestFailure, rc.Push = "true", true, true
			rc.Webhook = "https://hooks.example/x"
		})},
		{name: "a flag set to its default still wins", file: file, flags: SupervisionFlags{RetryBackoffSeconds: ptr(0), RollbackOnTestFailure: ptr(false)},
			want: with(func(rc *SupervisionConfig) {
				rc.MaxFailures, rc.HangTimeoutSeconds, rc.TestCommand = 2, 120, "make test"
			})},
		{name: "file turns supervision off", file: "[regent]\nenabled = false\n", want: with(func(rc *SupervisionConfig) { rc.Enabled = false })},
		{name: "--no-regent over the file", file: file, flags: SupervisionFlags{NoSupervision: true}, want: with(func(rc *SupervisionConfig) {
			rc.Enabled = false
			rc.MaxFailures, rc.RetryBackoffSeconds, rc.HangTimeoutSeconds = 2, 1, 120
			rc.TestCommand, rc.RollbackOnTestFailure = "make test", true
		})},
		{name: "bad file", file: "[regent]\nmax_retry = 3\n", wantErr: `swarm.toml:2: unknown key "max_retry" in [regent]`},
		{name: "rollback from the file, no test command", file: "[regent]\nrollback_on_test_failure = true\n",
			wantErr: "--rollback-on-test-failure needs --test-command (or test_command in swarm.toml)"},
		{name: "blank test command", file: "-", flags: SupervisionFlags{RollbackOnTestFailure: ptr(true), TestCommand: ptr("  ")},
			wantErr: "--rollback-on-test-failure needs --test-command (or test_command in swarm.toml)"},
		{name: "push without rollback", file: "-", flags: SupervisionFlags{Push: ptr(true)}, wantErr: "--push needs --rollback-on-test-failure"},
		{name: "zero max failures", file: "-", flags: SupervisionFlags{MaxFailures: ptr(0)}, wantErr: "--max-failures must be at least 1"},
		{name: "negative backoff", file: "-", flags: SupervisionFlags{RetryBackoffSeconds: ptr(-1)}, wantErr: "--retry-backoff must not be negative"},
		{name: "negative hang timeout", file: "-", flags: SupervisionFlags{HangTimeoutSeconds: ptr(-1)}, wantErr: "--hang-timeout must not be negative"},
		{name: "negative iteration timeout", file: "-", flags: SupervisionFlags{IterationTimeout: ptr(-1)}, wantErr: "--iteration-timeout must not be negative"},
		{name: "webhook not http", file: "-", flags: SupervisionFlags{Webhook: ptr("ftp://x")},
			wantErr: "invalid --webhook 'ftp://x' (expected an http:// or https:// URL)"},
		{name: "checks apply with supervision off", file: "-", flags: SupervisionFlags{NoSupervision: true, Push: ptr(true)},
			wantErr: "--push needs --rollback-on-test-failure"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := projectRoot(t, c.file)
			// The file is found from a directory below the one that holds it.
			dir := filepath.Join(root, "src")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			got, err := ResolveSupervision(config.Load(dir), c.flags)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}
