package demoagent

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// options are the agent's command-line flags.
type options struct {
	prompt, banner, dialog, record, stamp string
	startDelay                            time.Duration
	ignoreTerm, noEcho, showMissed        bool
	exitCode                              int
	ignoreEnters                          int
}

func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("demo-agent", flag.ContinueOnError)
	fs.StringVar(&o.prompt, "prompt", "❯\u00a0", "input prompt to show")
	fs.StringVar(&o.banner, "banner", "demo agent ready", "line printed at start")
	fs.DurationVar(&o.startDelay, "start-delay", 0, "wait this long before showing the prompt")
	fs.BoolVar(&o.ignoreTerm, "ignore-term", false, "ignore SIGTERM and SIGHUP")
	fs.StringVar(&o.dialog, "dialog", "", "show a first-run dialog before the prompt: trust-folder or bypass-permissions")
	fs.IntVar(&o.exitCode, "exit", -1, "exit with this code right after starting")
	fs.StringVar(&o.record, "record", "", "append every message received, exactly as received, to this file")
	fs.StringVar(&o.stamp, "stamp", "", "append the time it started to this file")
	fs.BoolVar(&o.noEcho, "no-echo", false, "show nothing of a submitted message")
	fs.IntVar(&o.ignoreEnters, "ignore-enters", 0, "miss the Enter of the first N messages (the text stays in the input line until the next Enter)")
	fs.BoolVar(&o.showMissed, "show-missed", false, "draw a message whose Enter was missed on the input line, instead of showing nothing")
	return o, fs.Parse(args)
}

// Main runs the agent with args (without the program name) and returns its exit code.
func Main(args []string) int {
	o, err := parseFlags(takeSignalFlags(args))
	if err != nil {
		return 2
	}
	if o.stamp != "" {
		appendStamp(o.stamp)
	}
	if o.ignoreTerm {
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
	}
	if o.banner != "" {
		fmt.Println(o.banner)
	}
	if o.exitCode >= 0 {
		return o.exitCode
	}
	if o.startDelay > 0 {
		time.Sleep(o.startDelay)
	}
	if !isTTY(os.Stdin) {
		// Headless: the whole of standard input is one message.
		data, _ := io.ReadAll(os.Stdin)
		if o.record != "" {
			_ = os.WriteFile(o.record, data, 0o600)
		}
		if code, exit := handle(string(data)); exit {
			return code
		}
		return 0
	}
	return interactive(o)
}

// interactive shows the input prompt and acts on each message until one ends the agent.
func interactive(o options) int {
	restore := noEcho(os.Stdin)
	defer restore()
	// Ask the terminal for bracketed paste, as TUIs do, so a pasted multi-line message arrives
	// as one message.
	fmt.Print("\x1b[?2004h")
	defer fmt.Print("\x1b[?2004l")
	r := bufio.NewReader(os.Stdin)
	input = r
	if o.dialog != "" && !answerDialog(r, o.dialog) {
		return 0
	}
	played.fire("SessionStart", map[string]any{"source": "startup"})
	defer played.fire("SessionEnd", map[string]any{"reason": "other"})
	held, missed, drawn := "", 0, 0
	for {
		if held == "" {
			fmt.Print("\n" + o.prompt)
		}
		msg, err := readMessage(r)
		if err != nil {
			fmt.Println()
			return 0
		}
		switch {
		case held != "" && msg == "":
			// The Enter that was missed before comes again: the message goes through.
			msg, held = held, ""
			clearInput(drawn)
			drawn = 0
		case missed < o.ignoreEnters:
			// Like an agent still busy drawing: the Enter is lost, nothing on screen changes
			// or (--show-missed) the message shows up on the input line only now (the record
			// says so, for tests that must act right after it).
			missed++
			held = msg
			recordMessage(o.record, "[missed Enter]")
			if o.showMissed {
				drawn = drawInput(o.prompt, msg)
			}
			continue
		}
		recordMessage(o.record, msg)
		if !o.noEcho {
			echoMessage(msg)
		}
		if strings.TrimSpace(msg) == "/exit" {
			return 0
		}
		played.fire("UserPromptSubmit", map[string]any{"prompt": msg})
		played.input, played.lastSaid, played.failed = msg, "", false
		if code, exit := handle(msg); exit {
			return code
		}
		if !played.failed {
			played.fire("Stop", map[string]any{"stop_hook_active": false, "last_assistant_message": played.lastSaid})
		}
	}
}

// answerDialog shows a first-run dialog and waits for its "1" answer; false when input ends.
func answerDialog(r *bufio.Reader, name string) bool {
	showDialog(name)
	for {
		// Typed or pasted (bracketed, as swarm send pastes), "1" and Enter.
		line, err := readMessage(r)
		if err != nil {
			return false
		}
		if strings.TrimSpace(line) == "1" {
			// As the real agents' full-screen dialogs do, the answered dialog goes away.
			fmt.Print("\x1b[2J\x1b[H")
			return true
		}
	}
}

// recordMessage appends a message to the record file, one message per line.
func recordMessage(path, msg string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	// A message that ends in a newline already ends its line.
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	_, _ = f.WriteString(msg)
}

// drawInput shows a message not submitted yet on the input line after the prompt, its further
// lines indented under it, and returns how many lines it took.
func drawInput(prompt, msg string) int {
	lines := strings.Split(msg, "\n")
	fmt.Print("\r\x1b[K" + prompt + strings.Join(lines, "\r\n  "))
	return len(lines)
}

// clearInput takes the n lines an input drawn by drawInput took off the screen, leaving the
// cursor at the start of its first line.
func clearInput(n int) {
	if n > 1 {
		fmt.Printf("\x1b[%dA", n-1)
	}
	if n > 0 {
		fmt.Print("\r\x1b[J")
	}
}

// echoMessage shows a submitted message the way agents do, above their next prompt.
func echoMessage(msg string) {
	fmt.Print("\r\x1b[K")
	for i, l := range strings.Split(msg, "\n") {
		if i == 0 {
			fmt.Println("> " + l)
		} else {
			fmt.Println("  " + l)
		}
	}
}

// readMessage returns one submitted message: a typed line, or a bracketed paste plus the line
// it ends on.
func readMessage(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	if !strings.Contains(line, pasteStart) {
		return strings.TrimRight(line, "\r\n"), nil
	}
	var b strings.Builder
	b.WriteString(line)
	for !strings.Contains(b.String(), pasteEnd) {
		more, err := r.ReadString('\n')
		b.WriteString(more)
		if err != nil {
			break
		}
	}
	s := b.String()
	s = strings.Replace(s, pasteStart, "", 1)
	s = strings.Replace(s, pasteEnd, "", 1)
	// Only the Enter that submitted the paste is dropped; newlines inside the paste are kept.
	return strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r"), nil
}

func showDialog(name string) {
	switch name {
	case "trust-folder":
		fmt.Println(" Accessing workspace:")
		fmt.Println(" Quick safety check: Is this a project you created or one you trust?")
		fmt.Println(" ❯ 1. Yes, I trust this folder")
		fmt.Println("   2. No, exit")
		fmt.Println(" Enter to confirm · Esc to cancel")
	case "bypass-permissions":
		fmt.Println("  WARNING: Claude Code running in Bypass Permissions mode")
		fmt.Println("  ❯ 1. No, exit")
		fmt.Println("    2. Yes, I accept")
		fmt.Println("  Enter to confirm · Esc to cancel")
	default:
		fmt.Println(" Press Enter to continue…")
	}
}

// handle runs the directives in msg; exit is true when one asks the agent to end.
func handle(msg string) (code int, exit bool) {
	for _, raw := range strings.Split(msg, "\n") {
		line := strings.TrimSpace(raw)
		if !strings.HasPrefix(line, "@") {
			continue
		}
		verb, arg, _ := strings.Cut(line[1:], " ")
		arg = strings.TrimSpace(arg)
		if verb != "sh" {
			arg = os.ExpandEnv(arg)
		}
		switch verb {
		case "say":
			fmt.Println("● " + arg)
			played.lastSaid = arg
		case "fail", "permission", "compact", "quiet", "long":
			signalDirective(verb, arg)
		case "work":
			secs, _ := strconv.ParseFloat(arg, 64)
			work(time.Duration(secs * float64(time.Second)))
		case "exit":
			n, _ := strconv.Atoi(arg)
			return n, true
		case "hang":
			select {}
		case "spin":
			spin()
		case "flood":
			floodDirective(arg)
		case "stream":
			for i := 1; ; i++ {
				fmt.Printf("output line %d\n", i)
				time.Sleep(100 * time.Millisecond)
			}
		case "touch":
			if f, err := os.Create(arg); err == nil {
				f.Close()
			}
		case "stamp":
			appendStamp(arg)
		case "fork":
			n, _ := strconv.Atoi(arg)
			for i := 0; i < n; i++ {
				c := exec.Command("sleep", "100000")
				_ = c.Start()
			}
			fmt.Printf("● started %d helpers\n", n)
		case "sh":
			out, err := exec.Command("/bin/sh", "-c", arg).CombinedOutput()
			fmt.Print(string(out))
			if err != nil {
				fmt.Printf("● command failed: %v\n", err)
			}
		}
	}
	return 0, false
}

var spinner = []string{"·", "✢", "✳", "✶", "✻", "✽"}

func work(d time.Duration) {
	start := time.Now()
	for i := 0; time.Since(start) < d; i++ {
		fmt.Printf("\r\x1b[K%s Working… (%ds · esc to interrupt)", spinner[i%len(spinner)], int(time.Since(start).Seconds()))
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Printf("\r\x1b[K✻ Worked for %ds\n", int(d.Seconds()))
}

func spin() {
	start := time.Now()
	for i := 0; ; i++ {
		fmt.Printf("\r\x1b[K%s Deciphering… (%ds · ↓ %d tokens · esc to interrupt)", spinner[i%len(spinner)], int(time.Since(start).Seconds()), 10+i%7)
		time.Sleep(150 * time.Millisecond)
	}
}

func isTTY(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// noEcho turns off terminal echo (the agent draws its own input), keeping line editing
// (C-u, backspace) and Ctrl-C/Ctrl-D working as in any line-based program. golang.org/x/term
// offers raw mode only, which would lose that editing; so the one flag is cleared by hand,
// with each system's own requests (termios_*.go).
func noEcho(f *os.File) func() {
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return func() {}
	}
	old := *t
	t.Lflag &^= unix.ECHO
	_ = unix.IoctlSetTermios(fd, setTermios, t)
	return func() { _ = unix.IoctlSetTermios(fd, setTermios, &old) }
}

// appendStamp appends the time now to path as date +%s.%N prints it.
func appendStamp(path string) {
	now := time.Now()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%d.%09d\n", now.Unix(), now.Nanosecond())
	f.Close()
}
