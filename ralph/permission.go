package ralph

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Answering a permission through the agent's own mechanism. Claude Code runs its
// PermissionRequest hooks before it shows a permission dialog, and takes a decision one prints
// instead of asking. swarm's hook records the request (an agent event, which the loop names
// as the permission it waits for) and holds it: it leaves a request file in the loop's box and
// waits for an answer file of the same name that `swarm answer` writes there. Answered in
// time, it prints the decision; otherwise it prints nothing and Claude Code shows its dialog,
// which `swarm answer` answers by keys. The box is all a sandboxed agent may read and write of
// swarm's, so both files are there; and since the agent may write there too, an answer read
// back is untrusted: bounded, validated, and of one request alone.

// EventPermissionRequest is Claude Code's hook that runs before a permission dialog.
const EventPermissionRequest = "PermissionRequest"

// DefaultPermissionHold is how long swarm's hook holds a permission request for an answer
// before Claude Code shows its own dialog.
const DefaultPermissionHold = 10 * time.Minute

// permissionHookSlack is how much longer than the hold Claude Code lets the hook run: the
// hook ends itself at the hold, never Claude Code.
const permissionHookSlack = 30

// PermissionHold is the loop's hold (its --permission-hold, else the default).
func (st *State) PermissionHold() time.Duration {
	if st.PermissionHoldSeconds != nil {
		return time.Duration(max(0, *st.PermissionHoldSeconds)) * time.Second
	}
	return DefaultPermissionHold
}

// Answers to a permission.
const (
	AnswerYes = "yes"
	AnswerNo  = "no"
)

// AnswerMessageMax bounds a refusal's message: a line or two for the model to read.
const AnswerMessageMax = 1000

// answerFileMax bounds an answer file as read back from the box.
const answerFileMax = 4 << 10

// Answer is a person's answer to a permission request, as its answer file holds it.
type Answer struct {
	Answer  string `json:"answer"`            // AnswerYes or AnswerNo
	Message string `json:"message,omitempty"` // a refusal's reason, for the model
	By      string `json:"by"`                // where it was given: cli, web, or swarm (the loop's setting)
}

// Where an answer can come from.
var answerSources = map[string]bool{"cli": true, "web": true, AnsweredBySwarm: true}

// CheckAnswer reports what is wrong with an answer, in words for the person who gave it.
func CheckAnswer(a Answer) error {
	switch {
	case a.Answer != AnswerYes && a.Answer != AnswerNo:
		return fmt.Errorf("the answer is yes or no, not %q", printableShort(a.Answer))
	case !answerSources[a.By]:
		return fmt.Errorf("an answer comes from cli, web or swarm, not %q", printableShort(a.By))
	case len(a.Message) > AnswerMessageMax:
		return fmt.Errorf("the message is %d bytes long; at most %d", len(a.Message), AnswerMessageMax)
	case !utf8.ValidString(a.Message):
		return errors.New("the message is not UTF-8 text")
	case strings.ContainsFunc(a.Message, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }):
		return errors.New("the message holds control characters")
	case a.Message != "" && a.Answer == AnswerYes:
		return errors.New("a message goes with a refusal (no), not with yes")
	}
	return nil
}

// ParseAnswer reads an answer file: bounded, exactly one JSON object of an Answer's fields,
// checked as CheckAnswer checks it.
func ParseAnswer(data []byte) (Answer, error) {
	var a Answer
	if len(data) > answerFileMax {
		return a, fmt.Errorf("the answer is %d bytes long; at most %d", len(data), answerFileMax)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return Answer{}, fmt.Errorf("the answer is not an answer's JSON: %w", err)
	}
	if dec.More() {
		return Answer{}, errors.New("the answer has more than one JSON value")
	}
	if err := CheckAnswer(a); err != nil {
		return Answer{}, err
	}
	return a, nil
}

// HookDecision is what the hook prints for Claude Code on an answer: its PermissionRequest
// decision, allow or deny (with the person's message, else a plain one, for the model).
func HookDecision(a Answer) []byte {
	decision := map[string]any{"behavior": "allow"}
	if a.Answer != AnswerYes {
		msg := a.Message
		if strings.TrimSpace(msg) == "" {
			msg = "The person refused this permission."
		}
		decision = map[string]any{"behavior": "deny", "message": msg}
	}
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": EventPermissionRequest, "decision": decision}})
	return out
}

// PermissionRequest is a request the hook holds, as its request file in the box says it.
type PermissionRequest struct {
	ID    string `json:"id"`
	What  string `json:"what"`  // the tool and a summary of its input, on one line
	Until string `json:"until"` // when the hook gives up holding it (RFC 3339)
}

// requestIDRe is what a request's id looks like: the name of its files.
var requestIDRe = regexp.MustCompile(`^[0-9a-f]{16}$`)

// ValidRequestID reports whether id can name a request's files.
func ValidRequestID(id string) bool { return requestIDRe.MatchString(id) }

// NewRequestID is a fresh request's id.
func NewRequestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Files of a held request, in the box: permission-ID.json (the request) and
// permission-ID.answer (its answer).
const (
	requestPrefix = "permission-"
	requestSuffix = ".json"
	answerSuffix  = ".answer"
)

// PermissionRequestPath is the request file of request id in box.
func PermissionRequestPath(box, id string) string {
	return filepath.Join(box, requestPrefix+id+requestSuffix)
}

// PermissionAnswerPath is the answer file of request id in box.
func PermissionAnswerPath(box, id string) string {
	return filepath.Join(box, requestPrefix+id+answerSuffix)
}

// requestFileMax bounds a request file as read back from the box.
const requestFileMax = 4 << 10

// ParseRequest reads a request file; ok is false for one that is no request (too long, not
// JSON, an id not a request's).
func ParseRequest(data []byte) (PermissionRequest, bool) {
	var r PermissionRequest
	if len(data) > requestFileMax || json.Unmarshal(data, &r) != nil || !ValidRequestID(r.ID) {
		return PermissionRequest{}, false
	}
	r.What = printableShort(r.What)
	return r, true
}

// Held reports whether the request is still held at now: its hook waits for an answer.
func (r PermissionRequest) Held(now time.Time) bool {
	until, err := time.Parse(time.RFC3339Nano, r.Until)
	return err == nil && now.Before(until)
}

// HeldRequest picks the request a person answers among those found in the box: the newest
// still held at now (Claude Code asks one at a time; an older one is a hook's leftover).
func HeldRequest(found []PermissionRequest, now time.Time) (PermissionRequest, bool) {
	var best PermissionRequest
	var bestUntil time.Time
	for _, r := range found {
		until, err := time.Parse(time.RFC3339Nano, r.Until)
		if err != nil || !now.Before(until) || (!bestUntil.IsZero() && !until.After(bestUntil)) {
			continue
		}
		best, bestUntil = r, until
	}
	return best, !bestUntil.IsZero()
}

// toolSummaryMax bounds the summary of a tool's input that names a permission.
const toolSummaryMax = 200

// ToolSummary names a tool call in one bounded line, as Claude Code's own notification does:
// Bash(rm -rf build), Write(src/a.go), or the tool with its input's JSON.
func ToolSummary(tool, input string) string {
	tool = printableShort(tool)
	if tool == "" {
		tool = "a tool"
	}
	var fields map[string]any
	arg := ""
	if json.Unmarshal([]byte(input), &fields) == nil {
		for _, k := range []string{"command", "file_path", "path", "url", "pattern", "prompt"} {
			if s, ok := fields[k].(string); ok && s != "" {
				arg = s
				break
			}
		}
	}
	if arg == "" && input != "" && input != "{}" {
		arg = input
	}
	if arg = printableShort(arg); arg == "" {
		return tool
	}
	return tool + "(" + arg + ")"
}

// printableShort is s on one line without control characters, at most toolSummaryMax bytes.
func printableShort(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > toolSummaryMax {
		s = strings.ToValidUTF8(s[:toolSummaryMax-len("…")], "") + "…"
	}
	return s
}
