package swarm

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/templates"
)

func TestRalphInit(t *testing.T) {
	te := newTestEnv(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "PROMPT.md")
	if err := runRalphInit(te.env, ralphInitOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "created PROMPT.md\n" {
		t.Errorf("printed %q", got)
	}
	wantErr(t, runRalphInit(te.env, ralphInitOptions{Dir: dir}), 1, "PROMPT.md already exists (use --force to overwrite)")
	writeLog(t, path, "custom")
	if err := runRalphInit(te.env, ralphInitOptions{Dir: dir, Force: true}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != "created PROMPT.md (overwritten)\n" {
		t.Errorf("printed %q", got)
	}
	if data, _ := os.ReadFile(path); string(data) != templates.Prompt {
		t.Errorf("PROMPT.md is %q", data)
	}
	wantErr(t, runRalphInit(te.env, ralphInitOptions{Dir: filepath.Join(dir, "missing")}), 1, "cannot write PROMPT.md")
}

func TestRalphTemplate(t *testing.T) {
	te := newTestEnv(t)
	if err := runRalphTemplate(te.env, ralphTemplateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := te.output(); got != templates.Prompt {
		t.Errorf("printed %q", got)
	}
}

// init and template need no state directory: they never create one.
func TestRalphInitAndTemplateFromTheCommandLine(t *testing.T) {
	stateDir := filepath.Join(t.TempDir(), "state")
	t.Chdir(t.TempDir())
	var out, errb bytes.Buffer
	if code := Run([]string{"swarm", "--swarm-dir", stateDir, "ralph", "init"}, &out, &errb); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errb.String())
	}
	if code := Run([]string{"swarm", "--swarm-dir", stateDir, "ralph", "template"}, &out, &errb); code != 0 {
		t.Fatalf("template: exit %d: %s", code, errb.String())
	}
	if got := out.String(); got != "created PROMPT.md\n"+templates.Prompt {
		t.Errorf("printed %q", got)
	}
	if _, err := os.Stat("PROMPT.md"); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(stateDir); !os.IsNotExist(err) {
		t.Errorf("a state directory was created: %v", err)
	}
	if code := Run([]string{"swarm", "--swarm-dir", stateDir, "ralph", "init"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "already exists") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// The starter prompt tells the agent how to end the loop: the marker, or the DONE file.
func TestTemplateNamesTheWaysToFinish(t *testing.T) {
	for _, want := range []string{"<promise>COMPLETE</promise>", "$SWARM_DONE_FILE"} {
		if !strings.Contains(templates.Prompt, want) {
			t.Errorf("the PROMPT.md template does not mention %s", want)
		}
	}
}
