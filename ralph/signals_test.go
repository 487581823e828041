package ralph

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// One event, one decision: what each of the agents' own signals means for the iteration.
func TestOnSignal(t *testing.T) {
	ev := func(event string) AgentEvent { return AgentEvent{Event: event, Session: "s1"} }
	failure := func(kind string) AgentEvent { return AgentEvent{Event: EventStopFailure, Error: kind, Session: "s1"} }
	note := func(kind string) AgentEvent { return AgentEvent{Event: EventNotification, Kind: kind} }
	cases := []struct {
		name   string
		f      SignalFacts
		act    SignalAct
		ending Ending
	}{
		{"turn ended without the marker", SignalFacts{Event: ev(EventStop), Session: "s1", Working: true}, SignalEnd, EndTurnEnded},
		{"turn ended with the marker", SignalFacts{Event: ev(EventStop), Working: true, Marker: true}, SignalEnd, EndDoneMarker},
		{"turn ended, its Stop hooks still running", SignalFacts{Event: ev(EventStop), Working: true, Busy: true}, SignalTurnPending, EndTurnEnded},
		{"turn ended with the marker, still busy", SignalFacts{Event: ev(EventStop), Working: true, Busy: true, Marker: true}, SignalTurnPending, EndDoneMarker},
		{"a turn before the prompt", SignalFacts{Event: ev(EventStop)}, SignalIgnore, 0},
		{"an earlier agent's session", SignalFacts{Event: ev(EventStop), Session: "s2", Working: true}, SignalUntied, 0},
		{"an earlier agent's end, late", SignalFacts{Event: ev(EventSessionEnd), Session: "s2", Working: true}, SignalIgnore, 0},
		{"the iteration's token", SignalFacts{Event: AgentEvent{Event: EventStopFailure, Error: "rate_limit", Token: "k1"},
			TokenSum: TokenSum("k1"), Working: true}, SignalEnd, EndUsageLimit},
		{"no token", SignalFacts{Event: failure("rate_limit"), TokenSum: TokenSum("k1"), Working: true}, SignalUntied, 0},
		{"an earlier iteration's token", SignalFacts{Event: AgentEvent{Event: EventStop, Token: "k0"}, TokenSum: TokenSum("k1"),
			Working: true}, SignalUntied, 0},
		{"no token, nothing to do anyway", SignalFacts{Event: ev(EventSessionEnd), TokenSum: TokenSum("k1"), Working: true}, SignalIgnore, 0},
		{"no session known", SignalFacts{Event: AgentEvent{Event: EventStop}, Session: "s2", Working: true}, SignalEnd, EndTurnEnded},
		{"rate limit parks", SignalFacts{Event: failure("rate_limit"), Working: true}, SignalEnd, EndUsageLimit},
		{"server error fails", SignalFacts{Event: failure("server_error"), Working: true}, SignalEnd, EndAPIError},
		{"overloaded fails", SignalFacts{Event: failure("overloaded"), Working: true}, SignalEnd, EndAPIError},
		{"failure before the prompt", SignalFacts{Event: failure("server_error")}, SignalIgnore, 0},
		{"prompt taken", SignalFacts{Event: ev(EventUserPromptSubmit)}, SignalDelivered, 0},
		{"permission asked", SignalFacts{Event: note("permission_prompt"), Working: true}, SignalPermission, 0},
		{"permission requested of the hook", SignalFacts{Event: ev(EventPermissionRequest), Working: true}, SignalPermission, 0},
		{"its dialog after the hook's request", SignalFacts{Event: note("permission_prompt"), Working: true, Permission: true}, SignalIgnore, 0},
		{"the next permission requested", SignalFacts{Event: ev(EventPermissionRequest), Working: true, Permission: true}, SignalPermission, 0},
		{"permission already named", SignalFacts{Event: note("permission_prompt"), Working: true, Permission: true}, SignalIgnore, 0},
		{"idle prompt", SignalFacts{Event: note("idle_prompt"), Working: true}, SignalIgnore, 0},
		{"compaction noted", SignalFacts{Event: ev(EventPreCompact), Working: true}, SignalNote, 0},
		{"compaction under --max-context", SignalFacts{Event: ev(EventPreCompact), Working: true, MaxContext: 70}, SignalEnd, EndCompaction},
		{"session start", SignalFacts{Event: ev(EventSessionStart), Session: "s1", Recorded: "s1"}, SignalIgnore, 0},
		{"a session the command picked", SignalFacts{Event: AgentEvent{Agent: "claude", Event: EventSessionStart, Session: "mine"}, Recorded: "s1"},
			SignalSession, 0},
		{"the session the command picked, known", SignalFacts{Event: AgentEvent{Agent: "claude", Event: EventSessionStart, Session: "mine"}, Recorded: "mine"},
			SignalIgnore, 0},
		{"session end", SignalFacts{Event: ev(EventSessionEnd), Working: true}, SignalIgnore, 0},
		{"unknown event", SignalFacts{Event: ev("PostToolUse"), Working: true}, SignalIgnore, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			act, ending := OnSignal(c.f)
			if act != c.act || ending != c.ending {
				t.Errorf("got %v/%v, want %v/%v", act, ending, c.act, c.ending)
			}
		})
	}
}

func TestParseAgentEvent(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name, agent, raw string
		want             AgentEvent
		ok               bool
	}{
		{"claude stop", "claude", `{"session_id":"s","transcript_path":"/t.jsonl","hook_event_name":"Stop","last_assistant_message":"done"}`,
			AgentEvent{Event: EventStop, Session: "s", Transcript: "/t.jsonl", Message: "done"}, true},
		{"claude stop failure", "claude", `{"session_id":"s","hook_event_name":"StopFailure","error":"rate_limit","error_details":"429 slow down","last_assistant_message":"x"}`,
			AgentEvent{Event: EventStopFailure, Session: "s", Error: "rate_limit", Message: "429 slow down"}, true},
		{"claude structured details", "claude", `{"hook_event_name":"StopFailure","error":"server_error","error_details":{"status":500}}`,
			AgentEvent{Event: EventStopFailure, Error: "server_error", Message: `{"status":500}`}, true},
		{"claude permission", "claude", `{"hook_event_name":"Notification","notification_type":"permission_prompt","message":"Claude needs your permission to use Bash"}`,
			AgentEvent{Event: EventNotification, Kind: "permission_prompt", Message: "Claude needs your permission to use Bash"}, true},
		{"codex turn", "codex", `{"type":"agent-turn-complete","thread-id":"th","input-messages":["do\n  it"],"last-assistant-message":"ok"}`,
			AgentEvent{Event: EventStop, Session: "th", Message: "ok", Input: "do it"}, true},
		{"codex other", "codex", `{"type":"approval-requested"}`, AgentEvent{}, false},
		{"no event name", "claude", `{"session_id":"s"}`, AgentEvent{}, false},
		{"not JSON", "claude", `Stop`, AgentEvent{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := ParseAgentEvent(c.agent, []byte(c.raw), now)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if !ok {
				return
			}
			c.want.At, c.want.Agent = "2026-11-26T12:00:00Z", c.agent
			if got != c.want {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestAgentSignals(t *testing.T) {
	d := Dir{Path: "/s/ralph/w"}
	rec := []string{"/bin/swarm", "agent-event"}
	t.Run("claude gets a settings file", func(t *testing.T) {
		s := AgentSignals([]string{"claude", "--dangerously-skip-permissions"}, d, rec, "k1", false)
		want := []string{"claude", "--dangerously-skip-permissions", "--settings", "/s/ralph/w/box/claude-settings.json"}
		if !slices.Equal(s.Argv, want) || s.Events != "/s/ralph/w/box/agent-events.jsonl" || s.Settings != want[3] {
			t.Fatalf("got %+v", s)
		}
		var doc struct {
			Hooks map[string][]struct {
				Hooks []struct{ Type, Command string }
			}
		}
		if err := json.Unmarshal(s.SettingsJSON, &doc); err != nil {
			t.Fatal(err)
		}
		for _, ev := range ClaudeHookEvents {
			h := doc.Hooks[ev]
			if len(h) != 1 || h[0].Hooks[0].Command != "/bin/swarm agent-event --agent claude --file /s/ralph/w/box/agent-events.jsonl --token k1" {
				t.Errorf("%s: %+v", ev, h)
			}
		}
	})
	t.Run("codex gets its notify program", func(t *testing.T) {
		s := AgentSignals([]string{"/usr/bin/codex", "--yolo"}, d, rec, "k1", false)
		want := []string{"/usr/bin/codex", "-c", `notify=["/bin/swarm","agent-event","--agent","codex","--file","/s/ralph/w/box/agent-events.jsonl","--token","k1"]`, "--yolo"}
		if !slices.Equal(s.Argv, want) || s.Settings != "" || s.Events == "" {
			t.Fatalf("got %q", s.Argv)
		}
	})
	t.Run("the user's own notify program runs after", func(t *testing.T) {
		s := agentSignals([]string{"codex"}, d, rec, "", false, signalExtras{userNotify: []string{"notify-send", "-a"}, hold: DefaultPermissionHold})
		want := `notify=["/bin/swarm","agent-event","--agent","codex","--file","/s/ralph/w/box/agent-events.jsonl","--then","[\"notify-send\",\"-a\"]"]`
		if len(s.Argv) != 3 || s.Argv[2] != want {
			t.Fatalf("got %q, want %s", s.Argv, want)
		}
	})
	for _, c := range []struct {
		name string
		cmd  []string
		rec  []string
		off  bool
	}{
		{"turned off", []string{"claude"}, rec, true},
		{"no recorder", []string{"claude"}, nil, false},
		{"another agent", []string{"aider"}, rec, false},
		{"the user's own --settings", []string{"claude", "--settings", "mine.json"}, rec, false},
		{"the user's own --settings=", []string{"claude", "--settings=mine.json"}, rec, false},
		{"the user's own notify", []string{"codex", "-c", "notify=[\"n\"]"}, rec, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := AgentSignals(c.cmd, d, c.rec, "k1", c.off)
			if !slices.Equal(s.Argv, c.cmd) || s.Events != "" || s.Settings != "" {
				t.Errorf("got %+v", s)
			}
		})
	}
}

// Codex reports the turns of its side tasks (the session's title) on threads of their own:
// only the prompt's thread counts.
func TestPromptThread(t *testing.T) {
	codex := func(thread, input string) AgentEvent {
		return AgentEvent{Agent: "codex", Event: EventStop, Session: thread, Input: input}
	}
	prompt := "please make\nthe file.\n"
	cases := []struct {
		name, known string
		e           AgentEvent
		thread      string
		ok          bool
	}{
		{"the prompt's turn", "", codex("t1", "please make the file."), "t1", true},
		{"a side task first", "", codex("t2", "Generate a concise, single-line task title"), "", false},
		{"a side task later", "t1", codex("t2", "Generate a concise title"), "t1", false},
		{"a later turn of the prompt's thread", "t1", codex("t1", "wrap up now"), "t1", true},
		{"no input to tell", "", codex("t1", ""), "", false},
		{"not Codex", "", AgentEvent{Agent: "claude", Event: EventStop, Session: "s"}, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			thread, ok := PromptThread(c.e, prompt, c.known)
			if thread != c.thread || ok != c.ok {
				t.Errorf("got %q/%v, want %q/%v", thread, ok, c.thread, c.ok)
			}
		})
	}
}

// An event is the iteration's agent's when it carries the token given to that agent, and
// names no other session than the one swarm gave it.
func TestUntied(t *testing.T) {
	sum := TokenSum("k1")
	cases := []struct {
		name         string
		e            AgentEvent
		session, sum string
		want         string
	}{
		{"tied", AgentEvent{Token: "k1", Session: "s1"}, "s1", sum, ""},
		{"tied, naming no session", AgentEvent{Token: "k1"}, "s1", sum, ""},
		{"no token", AgentEvent{Session: "s1"}, "s1", sum, "no token"},
		{"another iteration's token", AgentEvent{Token: "k0", Session: "s1"}, "s1", sum, "another agent's token"},
		{"the token's digest", AgentEvent{Token: sum, Session: "s1"}, "s1", sum, "another agent's token"},
		{"another session", AgentEvent{Token: "k1", Session: "s0"}, "s1", sum, "another session"},
		{"an agent started before tokens", AgentEvent{Session: "s1"}, "s1", "", ""},
		{"an agent started before tokens, another session", AgentEvent{Session: "s0"}, "s1", "", "another session"},
		{"a session the command picked", AgentEvent{Token: "k1", Session: "mine"}, "", sum, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Untied(c.e, c.session, c.sum); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
	if TokenSum("k1") == TokenSum("k2") || len(sum) != 32 {
		t.Errorf("digests: %s %s", sum, TokenSum("k2"))
	}
}
