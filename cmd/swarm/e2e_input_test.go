package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/cmd/swarm/internal/fakeapi"
)

// What swarm types into a real agent must reach the model byte for byte, and a user (or a
// director agent) must be able to talk to and interrupt a running agent.

// longPrompt is 200 lines of the things shells and tmux like to interpret, ending in `;`.
func longPrompt() string {
	var b strings.Builder
	for i := 1; i <= 200; i++ {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "line %d: run $(rm -rf /tmp/never-%d) and ${HOME} literally", i, i)
		case 1:
			fmt.Fprintf(&b, "line %d: backticks `uname -a` and \\`escaped\\` stay", i)
		case 2:
			fmt.Fprintf(&b, "line %d: 'single' \"double\" \"it's\" quotes; #{pane_id} #(date) %%s", i)
		case 3:
			fmt.Fprintf(&b, "line %d: pipes | redirects > /dev/null && || ! ~ * ? [a-z] \\n \\t", i)
		default:
			fmt.Fprintf(&b, "line %d:   indented   text with  double  spaces", i)
		}
		if i < 200 {
			b.WriteString("\n")
		}
	}
	b.WriteString(" and the last one ends with a semicolon;")
	return b.String()
}

func TestE2EClaudeLongPrompt(t *testing.T) {
	requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t, fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "line 200:"},
		Reply: fakeapi.Reply{Text: "Read all 200 lines. " + doneMarker}})
	prompt := longPrompt()
	claudeLoop(t, e, api, fullySetUp(e.work), "long", prompt, "--max-iterations", "2", "--done-pattern", doneMarker)
	e.waitDone("long", 90*time.Second, 1)
	r, ok := api.WaitFor(time.Second, func(r fakeapi.Request) bool { return r.MainCall > 0 && strings.Contains(r.LastBlock, "line 1:") })
	if !ok {
		t.Fatal("no request carried the prompt")
	}
	// Claude Code 2.1.332 hands a long paste to the model inside a wrapper of its own;
	// the text inside is the prompt, byte for byte.
	got, wrapped := unwrapPasted(r.LastBlock)
	if got != prompt {
		t.Errorf("the model got a different prompt (wrapped in <pasted_content>: %v).\n%s", wrapped, firstDifference(prompt, got))
	}
	t.Logf("the prompt reached the model intact (wrapped in <pasted_content>: %v)", wrapped)
}

var pastedOpenRe = regexp.MustCompile(`^\s*<pasted_content id="([^"]*)">\n`)

// unwrapPasted takes off the `<pasted_content id="...">` wrapper Claude Code puts around a
// pasted text: a blank line or two, the opening tag and a newline, the text, a newline and
// the closing tag, which repeats the id, and a newline. Text without it is returned as it is.
func unwrapPasted(s string) (string, bool) {
	m := pastedOpenRe.FindStringSubmatchIndex(s)
	if m == nil {
		return s, false
	}
	closing := "\n</pasted_content id=\"" + s[m[2]:m[3]] + "\">"
	rest := strings.TrimRight(s[m[1]:], "\n")
	inner, ok := strings.CutSuffix(rest, closing)
	if !ok {
		return s, false
	}
	return inner, true
}

// firstDifference shows where two texts part, line by line.
func firstDifference(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d (of %d sent, %d received):\nwant %q\ngot  %q", i+1, len(wl), len(gl), w, g)
		}
	}
	return "same lines"
}

// A plain worker running Claude Code: `swarm send` gets an answer, `swarm interrupt` stops a
// turn that is stuck waiting on the API, and the agent takes the next message afterwards.
func TestE2EClaudeSendInterrupt(t *testing.T) {
	bins := requireAgents(t)
	e := newE2EEnv(t)
	api := fakeapi.Start(t,
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "ping-one"}, Reply: fakeapi.Reply{Text: "pong-one received"}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "slow-job"}, Reply: fakeapi.Reply{Hang: true}},
		fakeapi.Rule{When: fakeapi.Match{LastBlockContains: "ping-two"}, Reply: fakeapi.Reply{Text: "pong-two received"}},
	)
	seedClaudeHome(t, e.home, fullySetUp(e.work))
	args := append([]string{"spawn", "--name", "cc", "--tmux", "--ready-wait"}, envFlags(claudeEnv(api.URL(), e.home))...)
	e.must(append(args, "--", bins.claude, "--dangerously-skip-permissions")...)

	e.must("send", "cc", "ping-one: answer me")
	e.waitScreen("cc", "pong-one received", 30*time.Second)

	e.must("send", "cc", "slow-job: take your time")
	if _, ok := api.WaitFor(30*time.Second, func(r fakeapi.Request) bool { return strings.Contains(r.LastBlock, "slow-job") }); !ok {
		t.Fatal("the second message never reached the model")
	}
	e.waitScreen("cc", `^[·✢✳✶✻✽*] \S+…`, 15*time.Second) // the spinner of a turn in progress
	e.must("interrupt", "cc")
	// The turn ends; with no answer yet, Claude Code puts the message back in its input box.
	e.waitScreenGone("cc", `^[·✢✳✶✻✽*] \S+…`, 15*time.Second)

	e.must("send", "cc", "ping-two: still there?")
	e.waitScreen("cc", "pong-two received", 30*time.Second)
	if out := e.must("status", "cc"); !strings.HasPrefix(out, "cc: running") {
		t.Errorf("status after the exchange: %s", out)
	}
}
