package ralph

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// Claude Code's hook input is one JSON object on the hook's stdin, and it holds the agent's
// last answer whole: a long report makes it megabytes. It is read as a stream, keeping of the
// few fields swarm reads only a bounded part (the end of the last answer, where a done marker
// is; the start of the others), and going past everything else without keeping it. However
// long the input, the event is recorded, in bounded memory.

// EventMessageKept is how much of an event's message (the agent's last answer, a
// notification's text, an error's details) is kept: enough for a done marker at the end of a
// long answer, and for an error's text.
const EventMessageKept = 16 << 10

// eventFieldKept bounds the event's short fields (its name, session, transcript path, error
// type): a longer one is no value Claude Code sends.
const eventFieldKept = 4 << 10

// toolInputKept bounds the start of a permission request's tool input that is read: its
// summary is shorter still (see ToolSummary); a file's whole new text is not kept.
const toolInputKept = 4 << 10

// ReadClaudeEvent reads Claude Code's hook input from r; ok is false when it is not a JSON
// object naming its event. An input cut short still gives the fields read before the cut.
func ReadClaudeEvent(r io.Reader, now time.Time) (AgentEvent, bool) {
	short := func() *kept { return &kept{max: eventFieldKept} }
	f := map[string]*kept{
		"hook_event_name": short(), "session_id": short(), "transcript_path": short(), "error": short(),
		"notification_type": short(), "message": {max: EventMessageKept},
		"error_details":          {max: EventMessageKept, raw: true},
		"last_assistant_message": {max: EventMessageKept, tail: true},
		"tool_name":              short(), "tool_input": {max: toolInputKept, raw: true},
		"permission_mode": short(),
	}
	in := jsonIn{r: bufio.NewReader(r)}
	if in.object(f) != nil && !f["hook_event_name"].whole {
		return AgentEvent{}, false
	}
	e := AgentEvent{At: now.UTC().Format(time.RFC3339Nano), Agent: "claude", Event: f["hook_event_name"].text(),
		Session: f["session_id"].text(), Transcript: f["transcript_path"].text(), Error: f["error"].text(),
		Kind: f["notification_type"].text()}
	if e.Event == "" {
		return AgentEvent{}, false
	}
	e.Message = FirstOf(f["message"].text(), f["error_details"].text(), f["last_assistant_message"].text())
	if e.Event == EventPermissionRequest {
		// What is asked, in the words of Claude Code's own notification of it.
		e.Message = "Claude needs your permission to use " + ToolSummary(f["tool_name"].text(), f["tool_input"].text())
		e.Mode = printableShort(f["permission_mode"].text())
	}
	return e, true
}

// kept is what is kept of one field's value: its first max bytes, or its last with tail. A
// raw field takes any JSON value, as compact JSON text (a string as its text); the others
// take only a string.
type kept struct {
	max   int
	tail  bool
	raw   bool
	buf   []byte
	whole bool // the value was read to its end
}

func (k *kept) add(b ...byte) {
	if k == nil {
		return
	}
	if !k.tail {
		if room := k.max - len(k.buf); room > 0 {
			k.buf = append(k.buf, b[:min(room, len(b))]...)
		}
		return
	}
	k.buf = append(k.buf, b...)
	if len(k.buf) > 2*k.max {
		k.buf = append(k.buf[:0], k.buf[len(k.buf)-k.max:]...)
	}
}

// text is the value kept, a rune cut in two at either end dropped.
func (k *kept) text() string {
	b := k.buf
	if k.tail && len(b) > k.max {
		b = b[len(b)-k.max:]
	}
	return strings.ToValidUTF8(string(b), "")
}

// jsonIn reads JSON from a stream, one byte at a time, keeping nothing of its own.
type jsonIn struct{ r *bufio.Reader }

var errNotJSON = errors.New("not the JSON expected")

// next is the next byte that is not white space.
func (j jsonIn) next() (byte, error) {
	for {
		c, err := j.r.ReadByte()
		if err != nil || !isJSONSpace(c) {
			return c, err
		}
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// object reads one object, giving the value of each key of fields to its kept (the last, when
// a key comes twice); the values of other keys are read past.
func (j jsonIn) object(fields map[string]*kept) error {
	if c, err := j.next(); err != nil || c != '{' {
		return errNotJSON
	}
	for {
		c, err := j.next()
		switch {
		case err != nil:
			return err
		case c == '}':
			return nil
		case c == ',':
			continue
		case c != '"':
			return errNotJSON
		}
		name := kept{max: 64}
		if err := j.str(&name); err != nil {
			return err
		}
		if c, err := j.next(); err != nil || c != ':' {
			return errNotJSON
		}
		k := fields[string(name.buf)]
		if k != nil {
			k.buf, k.whole = k.buf[:0], false
		}
		if err := j.value(k); err != nil {
			return err
		}
		if k != nil {
			k.whole = true
		}
	}
}

// value reads one value into k (nil: read past it).
func (j jsonIn) value(k *kept) error {
	c, err := j.next()
	if err != nil {
		return err
	}
	if c == '"' {
		return j.str(k)
	}
	if k != nil && !k.raw {
		k = nil // a field that takes a string keeps nothing of another value
	}
	if c == '{' || c == '[' {
		return j.nested(c, k)
	}
	k.add(c)
	for {
		c, err := j.r.ReadByte()
		if err != nil {
			return err
		}
		if c == ',' || c == '}' || c == ']' || isJSONSpace(c) {
			return j.r.UnreadByte()
		}
		k.add(c)
	}
}

// nested reads an object or array past its opening byte, keeping its compact text in k.
func (j jsonIn) nested(open byte, k *kept) error {
	k.add(open)
	for depth := 1; depth > 0; {
		c, err := j.next()
		if err != nil {
			return err
		}
		k.add(c)
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			if err := j.rawStr(k); err != nil {
				return err
			}
		}
	}
	return nil
}

// rawStr reads a string past its opening quote, keeping it as written (escapes and all).
func (j jsonIn) rawStr(k *kept) error {
	for {
		c, err := j.r.ReadByte()
		if err != nil {
			return err
		}
		k.add(c)
		switch c {
		case '"':
			return nil
		case '\\':
			c, err := j.r.ReadByte()
			if err != nil {
				return err
			}
			k.add(c)
		}
	}
}

// str reads a string past its opening quote, keeping its text in k.
func (j jsonIn) str(k *kept) error {
	for {
		c, err := j.r.ReadByte()
		if err != nil {
			return err
		}
		switch c {
		case '"':
			return nil
		case '\\':
			if err := j.escape(k); err != nil {
				return err
			}
		default:
			k.add(c)
		}
	}
}

// escape reads one escape of a string past its backslash, keeping the character it stands for.
func (j jsonIn) escape(k *kept) error {
	c, err := j.r.ReadByte()
	if err != nil {
		return err
	}
	switch c {
	case 'b':
		k.add('\b')
	case 'f':
		k.add('\f')
	case 'n':
		k.add('\n')
	case 'r':
		k.add('\r')
	case 't':
		k.add('\t')
	case 'u':
		r, err := j.hex4()
		if err != nil {
			return err
		}
		if utf16.IsSurrogate(r) {
			// The second half follows as an escape of its own; peeked, so that anything else
			// is read as what it is.
			if next, _ := j.r.Peek(6); len(next) == 6 && next[0] == '\\' && next[1] == 'u' {
				_, _ = j.r.Discard(2)
				low, err := j.hex4()
				if err != nil {
					return err
				}
				r = utf16.DecodeRune(r, low)
			}
		}
		k.add(utf8.AppendRune(nil, r)...)
	default:
		k.add(c) // \" \\ \/
	}
	return nil
}

// hex4 reads the four hex digits of a \u escape.
func (j jsonIn) hex4() (rune, error) {
	var r rune
	for range 4 {
		c, err := j.r.ReadByte()
		if err != nil {
			return 0, err
		}
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, errNotJSON
		}
	}
	return r, nil
}
