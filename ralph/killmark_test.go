package ralph

import (
	"os"
	"strings"
	"testing"
)

// A marked kill is what every reader sees, and the first write under the loop lock records it
// (the state and its [KILL] event) and removes the mark.
func TestKillMarkIsHonouredThenRecorded(t *testing.T) {
	d := Dir{Path: t.TempDir()}
	if err := d.Create(&State{Status: StatusRunning}); err != nil {
		t.Fatal(err)
	}
	if err := d.MarkKilled(); err != nil {
		t.Fatal(err)
	}
	if st, err := d.Load(); err != nil || st.Status != StatusStopped || st.ExitReason != "killed" {
		t.Fatalf("Load of a marked loop: %+v, %v", st, err)
	}
	if _, err := d.Update(func(s *State) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if d.KillMarked() {
		t.Error("the mark stayed after the kill was recorded")
	}
	raw, _ := os.ReadFile(d.StatePath())
	if !strings.Contains(string(raw), `"status": "stopped"`) {
		t.Errorf("the kill was not written: %s", raw)
	}
	log, _ := os.ReadFile(d.IterationsLog())
	if strings.Count(string(log), "[KILL]") != 1 {
		t.Errorf("want one [KILL] event, got log %q", log)
	}
	// A loop that is not running is left as it is.
	if err := d.MarkKilled(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Update(func(s *State) error { return nil }); err != nil {
		t.Fatal(err)
	}
	log, _ = os.ReadFile(d.IterationsLog())
	if strings.Count(string(log), "[KILL]") != 1 {
		t.Errorf("a second mark logged a second kill: %q", log)
	}
}
