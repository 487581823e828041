package demoagent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/sys/unix"
)

// A permission asked as Claude Code asks it: its PermissionRequest hooks run first, with the
// request on stdin, and the first decision one prints answers it; without one the dialog
// shows, and fires its Notification. The dialog is answered by keys, as a real agent's menu
// is: "1" (or a pasted "1" and its Enter) gives the permission, Escape refuses it.

// askPermission asks for the permission to use what (Tool(input), as in Bash(rm -rf build)).
func askPermission(what string) {
	fmt.Println("● " + what + " wants to run")
	if played.like == "claude" {
		if allow, msg, ok := played.permissionHooks(what); ok {
			permissionOutcome(allow, msg)
			return
		}
	}
	fmt.Println(" Do you want to proceed?")
	fmt.Println(" ❯ 1. Yes")
	fmt.Println("   2. No")
	played.fire("Notification", map[string]any{"notification_type": "permission_prompt",
		"message": "Claude needs your permission to use " + what})
	if input != nil {
		if allow, ok := dialogKeys(input); ok {
			permissionOutcome(allow, "")
		}
	}
}

func permissionOutcome(allow bool, msg string) {
	switch {
	case allow:
		fmt.Println("● permission given")
	case msg != "":
		fmt.Println("● permission refused: " + msg)
	default:
		fmt.Println("● permission refused")
	}
}

// permissionHooks runs the PermissionRequest hooks of the settings with a Claude-shaped
// request for what; ok is false when none decided (or there are none).
func (s *signals) permissionHooks(what string) (allow bool, msg string, ok bool) {
	cwd, _ := os.Getwd()
	cmds := hookCommands(s.settingsFiles(cwd), "PermissionRequest")
	tool, input, _ := strings.Cut(strings.TrimSuffix(what, ")"), "(")
	req, _ := json.Marshal(map[string]any{"session_id": s.session, "transcript_path": "", "cwd": cwd,
		"hook_event_name": "PermissionRequest", "permission_mode": "default", "tool_name": tool,
		"tool_input": map[string]any{"command": input}, "permission_suggestions": []any{}})
	for _, cmd := range cmds {
		c := exec.Command("/bin/sh", "-c", cmd)
		c.Stdin = bytes.NewReader(req)
		out, _ := c.Output()
		var answer struct {
			HookSpecificOutput struct {
				HookEventName string `json:"hookEventName"`
				Decision      struct {
					Behavior string `json:"behavior"`
					Message  string `json:"message"`
				} `json:"decision"`
			} `json:"hookSpecificOutput"`
		}
		if json.Unmarshal(bytes.TrimSpace(out), &answer) != nil || answer.HookSpecificOutput.HookEventName != "PermissionRequest" {
			continue
		}
		switch d := answer.HookSpecificOutput.Decision; d.Behavior {
		case "allow":
			return true, "", true
		case "deny":
			return false, d.Message, true
		}
	}
	return false, "", false
}

// dialogKeys reads the keys that answer the dialog, the terminal taking each key as it comes
// while it is shown; ok is false when input ends.
func dialogKeys(r *bufio.Reader) (allow, ok bool) {
	restore := keysMode(os.Stdin)
	defer restore()
	for {
		c, err := r.ReadByte()
		if err != nil {
			return false, false
		}
		switch {
		case c == '1':
			return true, true
		case c == 0x1b && r.Buffered() == 0:
			// Escape alone; a sequence (a paste) comes in one piece with what follows it.
			return false, true
		case c == 0x1b:
			if pasted, err := readPaste(r); err == nil && strings.TrimSpace(pasted) == "1" {
				// swarm send pastes, then presses Enter: that Enter is the answer's too.
				for c != '\r' && c != '\n' && err == nil {
					c, err = r.ReadByte()
				}
				return true, true
			}
		}
	}
}

// readPaste reads an escape sequence past its ESC: a bracketed paste's text, else "".
func readPaste(r *bufio.Reader) (string, error) {
	var seq []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			return "", err
		}
		seq = append(seq, c)
		if len(seq) > 1 && c >= 0x40 && c <= 0x7e {
			break
		}
	}
	if string(seq) != "[200~" {
		return "", nil
	}
	var text []byte
	for !bytes.HasSuffix(text, []byte(pasteEnd)) {
		c, err := r.ReadByte()
		if err != nil {
			return "", err
		}
		text = append(text, c)
	}
	return string(bytes.TrimSuffix(text, []byte(pasteEnd))), nil
}

// keysMode has the terminal hand over each key as it is typed (no line editing), until the
// function it returns puts the modes back.
func keysMode(f *os.File) func() {
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return func() {}
	}
	old := *t
	t.Lflag &^= unix.ICANON | unix.ECHO
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	_ = unix.IoctlSetTermios(fd, setTermios, t)
	return func() { _ = unix.IoctlSetTermios(fd, setTermios, &old) }
}
