package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The end-to-end suite runs the real agent CLIs, installed from npm into a cache directory
// that later runs reuse. The versions are pinned because the screen detectors are checked
// against what these exact builds draw; SWARM_E2E_AGENTS=latest (make e2e-latest) runs the
// suite on whatever npm has today instead, to see a new release's drift before users do, and
// SWARM_E2E_CLAUDE_VERSION and SWARM_E2E_CODEX_VERSION run it on other releases.
var (
	claudeCodeVersion = envOr("SWARM_E2E_CLAUDE_VERSION", "2.1.332")
	codexVersion      = envOr("SWARM_E2E_CODEX_VERSION", "0.171.0")
)

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

const (
	geminiCLIVersion = "0.61.0"
	opencodeVersion  = "1.18.33"
	qwenCodeVersion  = "0.24.4"
	copilotVersion   = "1.0.102"
	fakeAPIKey       = "sk-ant-fake-0123456789abcdefghijklmnop"
	fakeOpenAIKey    = "sk-fake-openai-0123456789abcdef"
)

// agentPackage is one agent CLI of the suite: its npm package, the command it installs and
// the release the suite is pinned to.
type agentPackage struct{ pkg, bin, pinned string }

var agentPackages = []agentPackage{
	{"@anthropic-ai/claude-code", "claude", claudeCodeVersion},
	{"@openai/codex", "codex", codexVersion},
	{"@google/gemini-cli", "gemini", geminiCLIVersion},
	{"opencode-ai", "opencode", opencodeVersion},
	{"@qwen-code/qwen-code", "qwen", qwenCodeVersion},
	{"@github/copilot", "copilot", copilotVersion},
}

type agentBins struct {
	claude, codex, gemini, opencode, qwen, copilot string
	// As installed: the pinned releases, or today's latest.
	claudeVersion, codexVersion, geminiVersion, opencodeVersion, qwenVersion, copilotVersion string
	// copilotPkg is where Copilot unpacks its package on first start (COPILOT_PKG_CACHE_HOME):
	// beside the install, once, rather than a quarter of a gigabyte in every test's HOME.
	copilotPkg string
}

// versions names what the suite runs against, for its log.
func (b agentBins) versions() string {
	return fmt.Sprintf("@anthropic-ai/claude-code@%s @openai/codex@%s @google/gemini-cli@%s opencode-ai@%s @qwen-code/qwen-code@%s @github/copilot@%s",
		b.claudeVersion, b.codexVersion, b.geminiVersion, b.opencodeVersion, b.qwenVersion, b.copilotVersion)
}

var (
	agentsOnce sync.Once
	agents     agentBins
	agentsErr  error
	agentsSkip string
)

// requireAgents skips the test unless the end-to-end suite was asked for (SWARM_E2E=1), and
// installs the agents on first use. A missing npm skips with one line; a registry that cannot
// be reached fails, so CI never passes without having run the agents.
//
// The tests run two at a time (make e2e's -parallel 2): most of their time is spent waiting
// on an agent (its start, a hang timeout, a backoff), each has its own HOME, state, tmux
// server and fake API, and one at a time the suite outgrew its place in CI. Those that time
// a reaction take requireAgentsAlone instead.
func requireAgents(t *testing.T) agentBins {
	t.Helper()
	// Asked again by a test's helpers, or by a subtest: the test is as its first ask made it.
	if _, asked := agentTests.LoadOrStore(t, false); !asked && os.Getenv("SWARM_E2E") != "" && !strings.Contains(t.Name(), "/") {
		t.Parallel()
	}
	return requireAgentsAlone(t)
}

// agentTests are the tests that asked for the agents: true for those that run alone.
var agentTests sync.Map

// requireAgentsAlone is requireAgents for a test that measures how soon something happens: it
// runs before the others, alone, so that no other agent's work is in its figures.
func requireAgentsAlone(t *testing.T) agentBins {
	t.Helper()
	agentTests.LoadOrStore(t, true)
	if os.Getenv("SWARM_E2E") == "" {
		t.Skip("end-to-end test: run with SWARM_E2E=1 (make e2e)")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is required for the end-to-end tests (apt-get install -y tmux)")
	}
	agentsOnce.Do(func() {
		agents, agentsSkip, agentsErr = installAgents()
		if agentsErr == nil && agentsSkip == "" {
			// Printed once per run, so a log of the suite always says what it ran against.
			fmt.Printf("e2e agents: %s\n", agents.versions())
		}
	})
	if agentsSkip != "" {
		t.Skip(agentsSkip)
	}
	if agentsErr != nil {
		t.Fatal(agentsErr)
	}
	t.Logf("agents: %s", agents.versions())
	return agents
}

// wantedVersions are the npm version specs to install, one per agentPackages entry: the
// pinned ones, or "latest" for all when SWARM_E2E_AGENTS=latest.
func wantedVersions() (specs []string, latest bool, err error) {
	v := os.Getenv("SWARM_E2E_AGENTS")
	switch v {
	case "", "pinned":
	case "latest":
		latest = true
	default:
		return nil, false, fmt.Errorf("SWARM_E2E_AGENTS=%q: want pinned or latest", v)
	}
	for _, a := range agentPackages {
		specs = append(specs, map[bool]string{false: a.pinned, true: "latest"}[latest])
	}
	return specs, latest, nil
}

// agentCacheDir is where the npm packages live between runs: SWARM_E2E_CACHE, or a folder
// per pinned set of versions (per day for the latest ones) in the user's cache directory.
func agentCacheDir(specs []string, latest bool) (string, error) {
	if dir := os.Getenv("SWARM_E2E_CACHE"); dir != "" {
		return filepath.Abs(dir)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	var name []string
	for i, a := range agentPackages {
		name = append(name, a.bin+"-"+specs[i])
	}
	if latest {
		name = []string{"latest-" + time.Now().UTC().Format("2006-01-02")}
	}
	return filepath.Join(base, "swarm-e2e", strings.Join(name, "_")), nil
}

func installAgents() (agentBins, string, error) {
	specs, latest, err := wantedVersions()
	if err != nil {
		return agentBins{}, "", err
	}
	dir, err := agentCacheDir(specs, latest)
	if err != nil {
		return agentBins{}, "", err
	}
	bin := func(name string) string { return filepath.Join(dir, "node_modules", ".bin", name) }
	bins := agentBins{claude: bin("claude"), codex: bin("codex"), gemini: bin("gemini"), opencode: bin("opencode"), qwen: bin("qwen"),
		copilot: bin("copilot"), copilotPkg: filepath.Join(dir, "copilot-pkg")}
	versions := []*string{&bins.claudeVersion, &bins.codexVersion, &bins.geminiVersion, &bins.opencodeVersion,
		&bins.qwenVersion, &bins.copilotVersion} // agentPackages' order
	have := func() []string { // the packages not installed at the wanted version
		var wrong []string
		for i, a := range agentPackages {
			got := installedVersion(dir, a.pkg)
			*versions[i] = got
			if latest && got == "" || !latest && got != specs[i] {
				wrong = append(wrong, fmt.Sprintf("%s@%s (have %q)", a.pkg, specs[i], got))
			}
		}
		return wrong
	}
	if !latest && len(have()) == 0 {
		return bins, "", unpackCopilot(bins)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return agentBins{}, "end-to-end tests skipped: npm not found (install Node.js and npm to run the real agents)", nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return agentBins{}, "", err
	}
	// A registry that cannot be reached must fail the run in minutes, not hang it.
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	args := []string{"install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error",
		"--fetch-retries=2", "--fetch-timeout=60000"}
	for i, a := range agentPackages {
		args = append(args, a.pkg+"@"+specs[i])
	}
	out, err := exec.CommandContext(ctx, npm, args...).CombinedOutput()
	if err != nil {
		return agentBins{}, "", fmt.Errorf("cannot install the agents from the npm registry into %s: %v\n%s", dir, err, out)
	}
	for _, b := range []string{bins.claude, bins.codex, bins.gemini, bins.opencode, bins.qwen, bins.copilot} {
		if _, err := os.Stat(b); err != nil {
			return agentBins{}, "", fmt.Errorf("npm install finished but %s is missing", b)
		}
	}
	if wrong := have(); len(wrong) > 0 {
		return agentBins{}, "", fmt.Errorf("npm did not install %s into %s", strings.Join(wrong, ", "), dir)
	}
	return bins, "", unpackCopilot(bins)
}

// unpackCopilot has Copilot unpack the package its executable carries into bins.copilotPkg
// once, where every test's agent finds it (a test's agent may see the cache read-only).
func unpackCopilot(bins agentBins) error {
	home, err := os.MkdirTemp("", "copilot-unpack-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.copilot, "--version")
	cmd.Env = append(os.Environ(), "HOME="+home, "COPILOT_HOME="+filepath.Join(home, ".copilot"),
		"COPILOT_PKG_CACHE_HOME="+bins.copilotPkg, "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("copilot --version: %v\n%s", err, out)
	}
	return nil
}

func installedVersion(dir, pkg string) string {
	data, err := os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
	if err != nil {
		return ""
	}
	var meta struct{ Version string }
	_ = json.Unmarshal(data, &meta)
	return meta.Version
}

// claudeSetup says how much of Claude Code's first run a fresh HOME has already been through.
type claudeSetup struct {
	onboarded      bool     // theme picker, security notes done
	keyApproved    bool     // the API key from the environment accepted
	bypassAccepted bool     // the --dangerously-skip-permissions warning accepted
	trusted        []string // folders whose trust dialog was answered
}

// fullySetUp takes Claude Code straight to its input prompt in dir.
func fullySetUp(dir string) claudeSetup {
	return claudeSetup{onboarded: true, keyApproved: true, bypassAccepted: true, trusted: []string{dir}}
}

// seedClaudeHome writes the files Claude Code reads at start-up. Without an approved key it
// takes its login path, which needs the internet, so every test approves the key except the
// one that wants that dialog (and then onboarding must be done, or it stops at the network).
func seedClaudeHome(t *testing.T, home string, s claudeSetup) {
	t.Helper()
	cfg := map[string]any{}
	if s.keyApproved {
		cfg["customApiKeyResponses"] = map[string]any{"approved": []string{fakeAPIKey[len(fakeAPIKey)-20:]}, "rejected": []string{}}
	}
	if s.onboarded {
		cfg["hasCompletedOnboarding"] = true
		cfg["lastOnboardingVersion"] = agents.claudeVersion
		cfg["lastReleaseNotesSeen"] = agents.claudeVersion
		cfg["theme"] = "dark"
		cfg["numStartups"] = 1
		// Keeps it from cloning its plugin marketplace from the internet.
		cfg["officialMarketplaceAutoInstallAttempted"] = true
		cfg["officialMarketplaceAutoInstallFailReason"] = "policy_blocked"
	}
	projects := map[string]any{}
	for _, dir := range s.trusted {
		// A folder that does not exist yet (a worktree a loop will make) is named as it will be.
		real, err := filepath.EvalSymlinks(dir)
		if errors.Is(err, fs.ErrNotExist) {
			real, err = dir, nil
		}
		if err != nil {
			t.Fatal(err)
		}
		projects[real] = map[string]any{"allowedTools": []string{}, "hasTrustDialogAccepted": true,
			"hasCompletedProjectOnboarding": true, "projectOnboardingSeenCount": 1}
	}
	cfg["projects"] = projects
	writeJSON(t, filepath.Join(home, ".claude.json"), cfg)
	settings := map[string]any{}
	if s.bypassAccepted {
		settings["skipDangerousModePermissionPrompt"] = true
	}
	writeJSON(t, filepath.Join(home, ".claude", "settings.json"), settings)
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// claudeEnv is the environment of a Claude Code worker talking to the fake API only.
func claudeEnv(apiURL, home string) []string {
	return []string{
		"HOME=" + home,
		"ANTHROPIC_BASE_URL=" + apiURL,
		"ANTHROPIC_API_KEY=" + fakeAPIKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL=1",
		// --dangerously-skip-permissions refuses to run as root without it (CI runs as root).
		"IS_SANDBOX=1",
	}
}

// seedCodexHome writes a Codex configuration that talks to the fake Responses API only and
// turns off everything that would reach the internet or leave a daemon behind.
func seedCodexHome(t *testing.T, codexHome, apiURL, work string) {
	t.Helper()
	real, err := filepath.EvalSymlinks(work)
	if err != nil {
		t.Fatal(err)
	}
	config := strings.Join([]string{
		`model = "gpt-5.1-codex"`,
		`model_provider = "fake"`,
		`approval_policy = "never"`,
		`sandbox_mode = "danger-full-access"`,
		`check_for_update_on_startup = false`,
		``,
		`[model_providers.fake]`,
		`name = "fake"`,
		fmt.Sprintf(`base_url = "%s/v1"`, apiURL),
		`env_key = "OPENAI_API_KEY"`,
		`wire_api = "responses"`,
		``,
		`[analytics]`,
		`enabled = false`,
		``,
		`[feedback]`,
		`enabled = false`,
		``,
		`[features]`,
		`plugins = false`,
		`remote_plugin = false`,
		`apps = false`,
		`in_app_updates = false`,
		`tool_suggest = false`,
		`daemon_auto_start = false`,
		``,
		fmt.Sprintf(`[projects.%q]`, real),
		`trust_level = "trusted"`,
		``,
	}, "\n")
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
}

func codexEnv(home, codexHome string) []string {
	return []string{"HOME=" + home, "CODEX_HOME=" + codexHome, "OPENAI_API_KEY=" + fakeOpenAIKey}
}
