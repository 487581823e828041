package swarm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/sandbox"
)

var (
	works       = sandbox.Support{Bwrap: "/usr/bin/bwrap", Namespaces: sandbox.NamespacesUsable}
	notThere    = sandbox.Support{Namespaces: sandbox.NamespacesUnknown, Why: "bubblewrap is not installed", Fix: "apt-get install bubblewrap"}
	noNamespace = sandbox.Support{Bwrap: "/usr/bin/bwrap", Namespaces: sandbox.NamespacesOff, Why: "bubblewrap cannot create namespaces here: user namespaces are off",
		Fix: "sysctl kernel.unprivileged_userns_clone=1", Said: "bwrap: No permissions to create new namespace"}
	skipping = []string{"claude", "--dangerously-skip-permissions"}
)

func reportText(r sandboxReport) string {
	var b strings.Builder
	printSandboxReport(&b, r)
	return b.String()
}

func TestSandboxCheckWhereBubblewrapWorks(t *testing.T) {
	r, err := sandboxReportOf(works, "0.8.0", config.SandboxSettings{}, skipping)
	if err != nil {
		t.Fatal(err)
	}
	if !r.CanSandbox || r.Problem != "" || strings.Join(r.Networks, ",") != "open,none,allow" || r.Default != (sandboxDefault{Mode: "auto", Net: "open"}) ||
		r.Agent == nil || !r.Agent.SkipsPermissions || r.Agent.Sandbox != "bwrap" {
		t.Errorf("report %+v", r)
	}
	want := "Sandbox: available (agents are confined with bubblewrap)\n" +
		"Bubblewrap: /usr/bin/bwrap (version 0.8.0)\n" +
		"User namespaces: usable\n" +
		"Networks: open, none, allow (--sandbox-net; allow through swarm's egress proxy)\n" +
		"Default: mode auto, net open: agents whose command skips its permission prompts are confined\n" +
		"Agent command: claude --dangerously-skip-permissions: skips its permission prompts, confined\n"
	if got := reportText(r); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestSandboxCheckWithoutBubblewrapSaysTheFix(t *testing.T) {
	r, err := sandboxReportOf(notThere, "", config.SandboxSettings{}, skipping)
	if err != nil {
		t.Fatal(err)
	}
	if r.CanSandbox || len(r.Networks) != 0 || r.Fix != "apt-get install bubblewrap" || r.Agent.Sandbox != "unsandboxed" {
		t.Errorf("report %+v", r)
	}
	text := reportText(r)
	for _, want := range []string{
		"Sandbox: unavailable: bubblewrap is not installed (apt-get install bubblewrap)\n",
		"Bubblewrap: not installed\n",
		"User namespaces: unknown (not tried without bubblewrap)\n",
		"Networks: none (no sandbox)\n",
		"here they run unsandboxed (--sandbox=required refuses them)\n",
		"Agent command: claude --dangerously-skip-permissions: skips its permission prompts, runs unsandboxed here\n",
		"Fix: apt-get install bubblewrap\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	data, _ := json.Marshal(r)
	for _, want := range []string{`"can_sandbox":false`, `"bubblewrap":{"installed":false}`, `"networks":[]`, `"fix":"apt-get install bubblewrap"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("json lacks %s: %s", want, data)
		}
	}
}

func TestSandboxCheckWithNamespacesOff(t *testing.T) {
	r, _ := sandboxReportOf(noNamespace, "0.8.0", config.SandboxSettings{Mode: "required", Net: "none"}, []string{"make"})
	text := reportText(r)
	for _, want := range []string{
		"Sandbox: unavailable: bubblewrap cannot create namespaces here: user namespaces are off (sysctl kernel.unprivileged_userns_clone=1): bwrap: No permissions",
		"User namespaces: off\n",
		"Default: mode required, net none: every agent must be confined: here spawn refuses them all\n",
		"Agent command: make: asks before it acts, refused here (required)\n",
		"Fix: sysctl kernel.unprivileged_userns_clone=1\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

func TestSandboxCheckSaysTheConfigurationsWarningsAndRefusesABadOne(t *testing.T) {
	r, err := sandboxReportOf(works, "", config.SandboxSettings{Mode: "on", Warnings: []string{"swarm.toml: not taken"}}, nil)
	if err != nil || r.Agent != nil || len(r.Warnings) != 1 || r.Default.Mode != "on" {
		t.Errorf("report %+v, %v", r, err)
	}
	if text := reportText(r); !strings.Contains(text, "Bubblewrap: /usr/bin/bwrap (its version unknown)\n") || !strings.Contains(text, "mode on, net open: every agent is confined\n") {
		t.Errorf("text:\n%s", text)
	}
	if _, err := sandboxReportOf(works, "", config.SandboxSettings{Net: "sometimes"}, nil); err == nil {
		t.Error("a net no spawn takes is reported as a default")
	}
}

func TestModeWordsForEveryMode(t *testing.T) {
	for _, m := range []string{"auto", "on", "required", "off"} {
		for _, can := range []bool{true, false} {
			if modeWords(m, can) == "" {
				t.Errorf("modeWords(%s, %v) says nothing", m, can)
			}
		}
	}
	if modeWords("off", false) != "no agent is confined" {
		t.Errorf("off: %q", modeWords("off", false))
	}
}
