package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// projectRoot makes a fresh repository root (a directory holding .git, where the search for
// swarm.toml stops) with swarm.toml holding content, unless content is "-".
func projectRoot(t *testing.T, content string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if content != "-" {
		if err := os.WriteFile(filepath.Join(root, ProjectConfigName), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		// The user who runs the tests has a config directory of the test's own, which
		// allowed the file.
		t.Setenv("XDG_CONFIG_HOME", t.TempDir())
		allowForTest(t, filepath.Join(root, ProjectConfigName))
	}
	return root
}

// allowForTest records consent to a project file in the user's config directory.
func allowForTest(t *testing.T, path string) {
	t.Helper()
	if _, err := Allow(path, time.Now()); err != nil {
		t.Fatal(err)
	}
}

func ptr[T any](v T) *T { return &v }

// describe shows the fields that are set, for failure messages.
func describe(rf SupervisionFile) string {
	var parts []string
	v := reflect.ValueOf(rf)
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); !f.IsNil() {
			parts = append(parts, fmt.Sprintf("%s=%#v", v.Type().Field(i).Name, f.Elem().Interface()))
		}
	}
	return "{" + strings.Join(parts, " ") + "}"
}

func TestSupervisionTable(t *testing.T) {
	cases := []struct {
		name, file string
		want       SupervisionFile
	}{
		{"empty file", "", SupervisionFile{}},
		{"no regent table", "[other]\nx = 1\n", SupervisionFile{}},
		{"every key", `# project settings
[regent]
enabled = false
rollback_on_test_failure = true   # comment after a value
test_command = "go test ./... # not a comment"
max_retries = 3
retry_backoff_seconds = 0
hang_timeout_seconds = 120
`, SupervisionFile{Enabled: ptr(false), RollbackOnTestFailure: ptr(true), TestCommand: ptr("go test ./... # not a comment"),
			MaxRetries: ptr(3), RetryBackoffSeconds: ptr(0), HangTimeoutSeconds: ptr(120)}},
		{"literal string", "[regent]\ntest_command = 'make \"check\"'\n", SupervisionFile{TestCommand: ptr(`make "check"`)}},
		{"escapes", "[regent]\ntest_command = \"a\\tb\"\n", SupervisionFile{TestCommand: ptr("a\tb")}},
		// Other tables and top-level keys belong to other parts of swarm.
		{"other tables left alone", "title = \"x\"\n[build]\nanything = [1, 2]\n[regent]\nmax_retries = 2\n[later]\ny = true\n",
			SupervisionFile{MaxRetries: ptr(2)}},
		{"dotted key", "regent.enabled = false\n", SupervisionFile{Enabled: ptr(false)}},
		{"inline table", "regent = { hang_timeout_seconds = 5 }\n", SupervisionFile{HangTimeoutSeconds: ptr(5)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rf, err := readFile(filepath.Join(projectRoot(t, c.file), ProjectConfigName)).supervision()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*rf, c.want) {
				t.Errorf("got %s, want %s", describe(*rf), describe(c.want))
			}
		})
	}
}

// Every mistake is reported with the file and the line of the key it is about.
func TestSupervisionTableErrors(t *testing.T) {
	const known = " (known: enabled, rollback_on_test_failure, test_command, max_retries, retry_backoff_seconds, hang_timeout_seconds)"
	cases := []struct{ name, file, want string }{
		{"unknown key", "[regent]\nenabled = true\nmax_retry = 3\n", `:3: unknown key "max_retry" in [regent]` + known},
		{"first of two unknown keys", "[regent]\n\nzz = 1\naa = 2\n", `:3: unknown key "zz" in [regent]` + known},
		{"sub-table", "[regent]\nenabled = true\n[regent.extra]\nx = 1\n", `:3: unknown key "extra" in [regent]` + known},
		{"string for an integer", "[regent]\nhang_timeout_seconds = \"soon\"\n", `:2: hang_timeout_seconds: expected a non-negative integer, got "soon"`},
		{"negative", "[regent]\n\nretry_backoff_seconds = -1\n", ":3: retry_backoff_seconds: expected a non-negative integer, got -1"},
		{"float", "[regent]\nhang_timeout_seconds = 1.5\n", ":2: hang_timeout_seconds: expected a non-negative integer, got 1.5"},
		{"zero retries", "[regent]\nmax_retries = 0\n", ":2: max_retries: must be at least 1"},
		{"bare word for a bool", "[regent]\nenabled = yes\n", ":2: enabled: expected true or false, got yes"},
		{"bare word with a comment", "[regent]\nrollback_on_test_failure = True # sure\n", ":2: rollback_on_test_failure: expected true or false, got True"},
		{"string for a bool", "[regent]\nenabled = \"true\"\n", `:2: enabled: expected true or false, got "true"`},
		{"number for a string", "[regent]\ntest_command = 5\n", ":2: test_command: expected a quoted string, got 5"},
		{"unquoted string", "[regent]\ntest_command = go test\n", ":2: test_command: expected a quoted string, got go test"},
		{"array for a string", "[regent]\ntest_command = [\"go\"]\n", ":2: test_command: expected a quoted string, got an array"},
		{"regent not a table", "regent = 5\n", ":1: regent: expected a table ([regent]), got 5"},
		{"array of regent tables", "[[regent]]\nenabled = true\n", ":1: regent: expected a table ([regent]), got an array of tables"},
		{"duplicate key", "[regent]\nenabled = true\nenabled = false\n", ":3: Key 'regent.enabled' has already been defined."},
		{"unterminated string", "[regent]\ntest_command = \"go test\n", ":2: "},
		{"syntax error elsewhere", "[build]\nx = = 1\n", ":2: "},
		{"unclosed header", "[regent\nenabled = true\n", ":1: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(projectRoot(t, c.file), ProjectConfigName)
			_, err := readFile(path).supervision()
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.HasPrefix(err.Error(), path+c.want) {
				t.Errorf("error %q\nwant %q", err, path+c.want)
			}
		})
	}
	if _, err := readFile(filepath.Join(t.TempDir(), "missing.toml")).supervision(); err == nil {
		t.Error("a missing file parsed")
	}
}

func TestFindProjectConfig(t *testing.T) {
	root := projectRoot(t, "[regent]\n")
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(root, ProjectConfigName)
	if got := FindProjectConfig(sub); got != want {
		t.Errorf("from a subdirectory: %q, want %q", got, want)
	}
	// The search stops at the repository root: a file above it belongs to something else.
	inner := filepath.Join(root, "nested")
	if err := os.MkdirAll(filepath.Join(inner, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := FindProjectConfig(inner); got != "" {
		t.Errorf("from a nested repository: %q, want none", got)
	}
}
