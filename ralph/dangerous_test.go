package ralph

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/ralph/config"
)

func TestAPermissionAskedInBypassModeIsDangerous(t *testing.T) {
	in := `{"hook_event_name":"PermissionRequest","session_id":"s","permission_mode":"bypassPermissions",` +
		`"tool_name":"Bash","tool_input":{"command":"rm -rf $(cat list.txt)"}}`
	e, ok := ReadClaudeEvent(strings.NewReader(in), time.Now())
	if !ok || e.Mode != ModeBypass || !e.SkipNotSkipped() {
		t.Fatalf("event %+v", e)
	}
	if got, want := DangerousWhat(e), "Claude needs your permission to use Bash(rm -rf $(cat list.txt)) (asked though permissions are skipped)"; got != want {
		t.Errorf("named %q, want %q", got, want)
	}
	st := &State{Status: StatusRunning}
	st.WaitsForPermission(DangerousWhat(e), time.Now())
	if n, ok := st.PersonNeed(); !ok || n.Words() != "dangerous command: Bash(rm -rf $(cat list.txt))" {
		t.Errorf("the need: %+v", n)
	}
	for _, mode := range []string{"default", "acceptEdits", ""} {
		e.Mode = mode
		if e.SkipNotSkipped() {
			t.Errorf("mode %q taken as skipped", mode)
		}
	}
}

func TestTheLoopRefusesOnlyWhenSetToAndOnlyTheDangerous(t *testing.T) {
	dangerous := AgentEvent{Event: EventPermissionRequest, Mode: ModeBypass}
	ordinary := AgentEvent{Event: EventPermissionRequest, Mode: "default"}
	no := &State{Unattended: Unattended{OnDangerous: config.DangerousNo}}
	if !no.RefusesDangerous(dangerous) || no.RefusesDangerous(ordinary) {
		t.Error("--on-dangerous no: refuses the dangerous one alone")
	}
	for _, setting := range []string{config.DangerousAsk, ""} {
		if (&State{Unattended: Unattended{OnDangerous: setting}}).RefusesDangerous(dangerous) {
			t.Errorf("--on-dangerous %q refused", setting)
		}
	}
}

func TestTheRefusalIsAValidAnswerBySwarm(t *testing.T) {
	if err := CheckAnswer(DangerousRefusal); err != nil {
		t.Fatal(err)
	}
	box := t.TempDir()
	id := NewRequestID()
	if err := WriteAnswer(box, id, DangerousRefusal); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(PermissionAnswerPath(box, id))
	if a, err := ParseAnswer(data); err != nil || a.By != AnsweredBySwarm || a.Answer != AnswerNo {
		t.Errorf("the hook reads %+v, %v", a, err)
	}
	// A person's answer, or one given already, is never replaced.
	if err := WriteAnswer(box, id, Answer{Answer: AnswerYes, By: "cli"}); err == nil {
		t.Error("an answer was written over")
	}
	if got := AnswerWords(DangerousRefusal); !strings.HasPrefix(got, `no, "This loop refuses`) {
		t.Errorf("answer words %q", got)
	}
}
