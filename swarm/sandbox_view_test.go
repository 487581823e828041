package swarm

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/dashboard"
	"github.com/swarm-dev/swarm/swarm/worker"
)

var (
	confined    = &state.SandboxInfo{Kind: "bwrap", Net: "allow", Allow: []string{"api.anthropic.com:443"}}
	unconfined  = &state.SandboxInfo{Kind: "none", Why: "bubblewrap is not installed (apt-get install bubblewrap)"}
	openConfine = &state.SandboxInfo{Kind: "bwrap", Net: "open"}
)

func TestStatusCellMarksOnlyAnAgentThatRunsUnsandboxed(t *testing.T) {
	for _, c := range []struct {
		sw   stateWord
		sb   *state.SandboxInfo
		want string
	}{
		{stateWord{word: "running"}, nil, "running"},
		{stateWord{word: "running"}, confined, "running"},
		{stateWord{word: "running"}, unconfined, "running (unsandboxed)"},
		{stateWord{word: "blocked", detail: "dialog: trust-folder"}, unconfined, "blocked (dialog: trust-folder, unsandboxed)"},
		{stateWord{word: "stopped", detail: "exit 4"}, confined, "stopped (exit 4)"},
	} {
		if got := statusCell(c.sw, c.sb); got != c.want {
			t.Errorf("statusCell(%v, %+v) = %q, want %q", c.sw, c.sb, got, c.want)
		}
	}
}

func TestSandboxTextSaysKindNetworkAndWhy(t *testing.T) {
	for _, c := range []struct {
		sb   *state.SandboxInfo
		want string
	}{
		{nil, "off"},
		{&state.SandboxInfo{}, "off"},
		{confined, "bwrap (net: allow api.anthropic.com:443)"},
		{openConfine, "bwrap (net: open)"},
		{&state.SandboxInfo{Kind: "bwrap"}, "bwrap (net: open)"},
		{&state.SandboxInfo{Kind: "bwrap", Net: "none"}, "bwrap (net: none)"},
		{unconfined, "none — unsandboxed: bubblewrap is not installed (apt-get install bubblewrap)"},
		{&state.SandboxInfo{Kind: "none"}, "none — unsandboxed"},
		// The record may have been edited: nothing in it reaches the terminal raw.
		{&state.SandboxInfo{Kind: "none", Why: "x\x1b]0;pwned\x07y"}, "none — unsandboxed: xy"},
	} {
		if got := sandboxText(c.sb); got != c.want {
			t.Errorf("sandboxText(%+v) = %q, want %q", c.sb, got, c.want)
		}
	}
}

func TestStatusLineSaysUnsandboxed(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	w := &state.Worker{Name: "w", Status: state.StatusRunning, Started: now.Add(-5 * time.Minute), Sandbox: unconfined,
		Tmux: &state.TmuxInfo{Session: "swarm", Window: "w"}}
	if got := statusLine(w, stateWord{word: "running"}, time.Time{}, now); got != "w: running (unsandboxed, tmux window swarm:w, uptime 5m)" {
		t.Errorf("got %q", got)
	}
	w.Sandbox = confined
	if got := statusLine(w, stateWord{word: "running"}, time.Time{}, now); got != "w: running (tmux window swarm:w, uptime 5m)" {
		t.Errorf("a confined agent: %q", got)
	}
}

func TestFleetRowMarksAHostsUnsandboxedWorker(t *testing.T) {
	now := time.Now()
	j := workerJSON{Name: "w", Host: "h1", State: "running", Status: "running", Sandbox: unconfined}
	if got := jsonRow(j, now)[2]; got != "running (unsandboxed)" {
		t.Errorf("got %q", got)
	}
	j.State, j.StateDetail = "stopped", "exit 1"
	if got := jsonRow(j, now)[2]; got != "stopped (exit 1, unsandboxed)" {
		t.Errorf("got %q", got)
	}
	j.Sandbox = confined
	if got := jsonRow(j, now)[2]; got != "stopped (exit 1)" {
		t.Errorf("got %q", got)
	}
}

func TestDashboardRowMarksUnsandboxed(t *testing.T) {
	r := dashboard.Row{State: "working", Tone: dashboard.ToneBusy}
	withSandbox(&r, confined)
	withSandbox(&r, nil)
	if r.State != "working" {
		t.Errorf("a confined agent marked: %q", r.State)
	}
	withSandbox(&r, unconfined)
	if r.State != "working · unsandboxed" || r.Tone != dashboard.ToneBusy {
		t.Errorf("got %q (tone %v)", r.State, r.Tone)
	}
}

func TestEgressShowsTheCountAndTheLatestLatestFirst(t *testing.T) {
	log := `{"time":"2026-11-29T10:00:00Z","host":"a.example","port":443,"why":"not allowed"}
{"time":"2026-11-29T10:00:01Z","host":"127.0.0.1","port":"8080","why":"not allowed"}
not json at all
{"time":"2026-11-29T10:00:02Z","host":"evil\u001b[31m.example","port":22}
{"time":"2026-11-29T10:00:03Z","host":"c.example","port":"http"}
`
	v := egressOf([]byte(log), false)
	if v.Count != 5 || v.AtLeast {
		t.Errorf("count %d (at least %v), want 5", v.Count, v.AtLeast)
	}
	if got := egressText(v); got != "5 (latest: c.example, evil.example:22, 127.0.0.1:8080)" {
		t.Errorf("egressText = %q", got)
	}
	data, _ := json.Marshal(v)
	if !strings.Contains(string(data), `"port":22`) || !strings.Contains(string(data), `"count":5`) {
		t.Errorf("json %s", data)
	}
	// The start of a log read from its middle is a torn line: not counted.
	v = egressOf([]byte(`t":"x","host":"torn.example"}`+"\n"+`{"host":"b.example","port":443}`+"\n"), true)
	if v.Count != 1 || !v.AtLeast || egressText(v) != "at least 1 (latest: b.example:443)" {
		t.Errorf("a cut log: %+v, %q", v, egressText(v))
	}
}

// A long log is read from its end only, and says its count is a lower bound.
func TestReadEgressReadsABoundedTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.egress.jsonl")
	if readEgress(path) != nil {
		t.Fatal("no log, yet a view")
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines int
	for size := 0; size < 2*egressTail; lines++ {
		n, _ := fmt.Fprintf(f, `{"time":"2026-11-29T10:00:00Z","host":"h%d.example","port":443,"why":"not allowed"}`+"\n", lines)
		size += n
	}
	f.Close()
	v := readEgress(path)
	if v == nil || !v.AtLeast || v.Count >= lines || v.Count < lines/3 {
		t.Fatalf("view %+v of %d lines", v, lines)
	}
	if want := fmt.Sprintf("h%d.example:443", lines-1); v.Latest[0].address() != want {
		t.Errorf("latest %q, want %q", v.Latest[0].address(), want)
	}
}

func TestRalphStatusSaysTheSandboxAndTheRefusedConnections(t *testing.T) {
	te := newLoopEnv(t)
	if _, err := te.env.Spawn(worker.SpawnOptions{Name: "s", Tmux: true, Argv: []string{"sh"}, Cwd: t.TempDir(), Sandbox: unconfined}); err != nil {
		t.Fatal(err)
	}
	ld := ralph.DirFor(te.Dir(), "s")
	if err := ld.Create(&ralph.State{WorkerName: "s", Status: ralph.StatusRunning, MaxIterations: 3}); err != nil {
		t.Fatal(err)
	}
	if err := runRalphStatus(te.env, ralphStatusOptions{Args: []string{"s"}, Format: "text"}); err != nil {
		t.Fatal(err)
	}
	out := te.output()
	if !strings.Contains(out, "\nSandbox: none — unsandboxed: bubblewrap is not installed (apt-get install bubblewrap)\n") {
		t.Errorf("status lacks the sandbox:\n%s", out)
	}
	if strings.Contains(out, "Refused connections") {
		t.Errorf("refused connections without a log:\n%s", out)
	}
	egress := `{"time":"2026-11-29T10:00:00Z","host":"a.example","port":443,"why":"not allowed"}` + "\n"
	if err := os.WriteFile(te.Dir().EgressPath("s"), []byte(egress), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := runRalphStatus(te.env, ralphStatusOptions{Args: []string{"s"}, Format: "json"}); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Sandbox *state.SandboxInfo `json:"sandbox"`
		Refused *egressView        `json:"refused_connections"`
	}
	if err := json.Unmarshal([]byte(te.output()), &v); err != nil {
		t.Fatal(err)
	}
	if v.Sandbox == nil || v.Sandbox.Kind != "none" || v.Sandbox.Why == "" || v.Refused == nil || v.Refused.Count != 1 || v.Refused.Latest[0].Host != "a.example" {
		t.Errorf("json: %+v %+v", v.Sandbox, v.Refused)
	}
	if err := runRalphStatus(te.env, ralphStatusOptions{Args: []string{"s"}, Format: "text"}); err != nil {
		t.Fatal(err)
	}
	if out := te.output(); !strings.Contains(out, "\nRefused connections: 1 (latest: a.example:443)\n") {
		t.Errorf("status lacks the refused connections:\n%s", out)
	}
}

func TestLsSaysTheSandboxInTheTableAndTheJSON(t *testing.T) {
	te := newTestEnv(t)
	for name, sb := range map[string]*state.SandboxInfo{"free": unconfined, "boxed": openConfine, "plain": nil} {
		if _, err := te.env.Spawn(worker.SpawnOptions{Name: name, Tmux: true, Argv: []string{"sh"}, Cwd: t.TempDir(), Sandbox: sb}); err != nil {
			t.Fatal(err)
		}
	}
	list, _, err := te.LoadAll()
	if err != nil {
		t.Fatal(err)
	}
	if err := printWorkers(te.env, list, "table"); err != nil {
		t.Fatal(err)
	}
	table := te.output()
	for _, want := range []string{"\nfree   running (unsandboxed)  ", "\nboxed  running  ", "\nplain  running  "} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if err := printWorkers(te.env, list, "json"); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(te.output()), &got); err != nil {
		t.Fatal(err)
	}
	for _, j := range got {
		sb, has := j["sandbox"].(map[string]any)
		switch j["name"] {
		case "free":
			if !has || sb["kind"] != "none" || sb["why"] == nil {
				t.Errorf("free: %v", j["sandbox"])
			}
		case "boxed":
			if !has || sb["kind"] != "bwrap" || sb["net"] != "open" {
				t.Errorf("boxed: %v", j["sandbox"])
			}
		case "plain":
			if _, there := j["sandbox"]; there {
				t.Errorf("plain has a sandbox: %v", j["sandbox"])
			}
		}
	}
}
