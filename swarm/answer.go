package swarm

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/state/eventlog"
)

// answerOptions are the arguments of `swarm answer`.
type answerOptions struct {
	Name    string
	Answer  ralph.Answer
	Format  string
	Timeout time.Duration // how long a held request's hook is given to take the answer
}

func answerCommand() *cli.Command {
	return &cli.Command{
		Name:      "answer",
		Usage:     "answer the permission a worker's agent waits for: yes or no",
		ArgsUsage: "NAME yes|no",
		Description: `Answers through the agent's own mechanism. A loop's Claude Code asks through its
PermissionRequest hook, which swarm holds for an answer (--permission-hold, 10 minutes by
default): the answer is its decision. An agent at a permission dialog on its screen (its hold
ran out, another agent, a worker that is no loop) is answered by keys: yes chooses the first
option (allow once), no presses Escape and then types the message, if any, as what to do
instead. Every answer is an event (swarm events --kind person.answered).

Exits 1 when the worker waits for no answer, 2 when there is no such worker.

Examples:
   swarm answer w1 yes
   swarm answer w1 no --message "do not delete build/, run make clean instead"
   swarm answer w1@gpu-box yes
   swarm answer w1 yes --format json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "with no: what the agent is told instead (at most 1000 bytes)"},
			&cli.StringFlag{Name: "by", Value: "cli", Hidden: true, Usage: "where the answer was given: cli or web"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, or json: {name, answer, message, by, what, through}"},
		},
		Action: func(c *cli.Context) error {
			o := answerOptions{Format: c.String("format"), Timeout: answerTaken,
				Answer: ralph.Answer{Message: c.String("message"), By: c.String("by")}}
			check := func() error {
				if c.NArg() != 2 {
					return usageError("swarm answer NAME yes|no [--message TEXT]")
				}
				o.Name, o.Answer.Answer = c.Args().Get(0), strings.ToLower(c.Args().Get(1))
				if _, err := checkFormat(o.Format, "text", "json"); err != nil {
					return err
				}
				if err := ralph.CheckAnswer(o.Answer); err != nil {
					return fail("%v", err)
				}
				return nil
			}
			return withEnv(c, check, func(e *env) error { return runAnswer(e, o) })
		},
	}
}

// answerTaken is how long a held request's hook is given to take its answer.
const answerTaken = 10 * time.Second

// answered is what `swarm answer` did, as --format json prints it.
type answered struct {
	Name    string `json:"name"`
	Answer  string `json:"answer"`
	Message string `json:"message,omitempty"`
	By      string `json:"by"`
	What    string `json:"what"`    // what was asked, as the agent named it
	Through string `json:"through"` // hook (the agent's permission hook) or keys (its dialog)
}

func runAnswer(e *env, o answerOptions) error {
	w, _, err := e.Load(o.Name)
	if err != nil {
		return err
	}
	if w.Tmux == nil || !running(w) {
		return notWaiting(o.Name)
	}
	var ld *ralph.Dir
	if d := ralph.DirFor(e.Dir(), o.Name); d.Exists() {
		ld = &d
	}
	res := answered{Name: o.Name, Answer: o.Answer.Answer, Message: o.Answer.Message, By: o.Answer.By}
	if ld != nil {
		if req, ok := ralph.HeldIn(ld.AgentBox(), time.Now()); ok {
			res.What, res.Through = ralph.PermissionWhat(req.What), "hook"
			if err := answerHeld(e, o, *ld, req); err != nil {
				return fail("cannot answer '%s': %w", o.Name, err)
			}
			return answerSaid(e, o, res)
		}
	}
	lines, err := e.PaneLines(w, 0)
	if err != nil {
		return fail("%w", err)
	}
	shown := screen.Classify(strings.Join(lines, "\n"), nil)
	keys, ok := screen.PermissionKeys(shown, o.Answer.Answer == ralph.AnswerYes)
	if !ok {
		return notWaiting(o.Name)
	}
	res.What, res.Through = "the "+shown.Dialog+" dialog", "keys"
	if ld != nil {
		if st, err := ld.Load(); err == nil && st.NeedsPermission != "" {
			res.What = ralph.PermissionWhat(st.NeedsPermission)
		}
	}
	press := func() error {
		if err := e.TmuxFor(w).SendKeys(w.Tmux.PaneID, keys...); err != nil {
			return fmt.Errorf("cannot answer '%s': %w", o.Name, err)
		}
		if o.Answer.Message != "" {
			// Refused, the agent waits for what to do instead: the message says it.
			if err := e.Type(w, o.Answer.Message, true, true); err != nil {
				return fmt.Errorf("cannot send the message to '%s': %w", o.Name, err)
			}
		}
		return nil
	}
	return answerByKeys(e, o, ld, res, press)
}

// notWaiting is the failure of an answer to a worker that waits for none.
func notWaiting(name string) error {
	return fail("worker '%s' is not waiting for an answer", name)
}

// answerHeld leaves the answer to a held request in the box, where its hook reads it, and
// waits for the hook to take it (the request's file goes with it). The answer is left and
// recorded under the loop lock, so that the loop, which takes it too to record what it sees,
// never takes the agent going on for an answer of nobody's.
func answerHeld(e *env, o answerOptions, ld ralph.Dir, req ralph.PermissionRequest) error {
	data, err := json.Marshal(o.Answer)
	if err != nil {
		return err
	}
	box := ld.AgentBox()
	told := false
	_, err = ld.Update(func(st *ralph.State) error {
		if err := createExclusive(ralph.PermissionAnswerPath(box, req.ID), data); err != nil {
			return fmt.Errorf("it was answered already, or its box cannot be written: %w", err)
		}
		waited := st.WaitsForPerson()
		told = st.PermissionAnsweredBy(o.Answer.By, answerWords(o.Answer))
		st.PersonWaitChanged(waited, time.Now())
		return nil
	})
	if err != nil {
		return err
	}
	if !told {
		// Asked before the loop read the request: the answer is the event all the same.
		tellAnswer(e, o, &ld, ralph.PermissionWhat(req.What))
	}
	deadline := time.Now().Add(o.Timeout)
	for time.Now().Before(deadline) {
		if _, held := ralph.HeldIn(box, time.Now()); !held {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("its agent did not take the answer within %s", o.Timeout)
}

// answerWords are the answer as its event says it: yes, no, or no with its message.
func answerWords(a ralph.Answer) string {
	if a.Message == "" {
		return a.Answer
	}
	return a.Answer + ", " + fmt.Sprintf("%q", a.Message)
}

// tellAnswer writes the answer's event for a need the loop (ld; nil for a worker that is no
// loop) has no record of.
func tellAnswer(e *env, o answerOptions, ld *ralph.Dir, what string) {
	ev := eventlog.Event{Kind: eventlog.PersonAnswered, Worker: o.Name, What: ralph.NeedPermission,
		Detail: answerWords(o.Answer) + ": " + what, By: o.Answer.By}
	if ld != nil {
		if st, err := ld.Load(); err == nil {
			ev.Iteration = st.CurrentIteration
		}
	}
	log := eventlog.Log{Root: e.Dir().Root}
	if _, err := log.Append(ev); err != nil {
		e.warnf("the answer to '%s' is not in the event log: %v", o.Name, err)
	}
}

// answerByKeys presses the keys that answer the dialog, records the answer where it was
// decided, and says it. A loop's answer is pressed and recorded under the loop lock, so that
// the loop, which takes it too to record what it sees, never takes the agent going on for an
// answer of nobody's.
func answerByKeys(e *env, o answerOptions, ld *ralph.Dir, res answered, press func() error) error {
	told := false
	if ld == nil {
		if err := press(); err != nil {
			return fail("%w", err)
		}
	} else {
		// The loop's need ends with the answer: one event, the answer's (see needEvent).
		_, err := ld.Update(func(st *ralph.State) error {
			if err := press(); err != nil {
				return err
			}
			waited := st.WaitsForPerson()
			told = st.PermissionAnsweredBy(o.Answer.By, answerWords(o.Answer))
			st.PersonWaitChanged(waited, time.Now())
			return nil
		})
		if err != nil {
			return fail("%w", err)
		}
	}
	if !told {
		tellAnswer(e, o, ld, res.What)
	}
	return answerSaid(e, o, res)
}

// answerSaid says what was answered, and how.
func answerSaid(e *env, o answerOptions, res answered) error {
	if o.Format == "json" {
		return printJSON(e, res)
	}
	how := "through its permission hook"
	if res.Through == "keys" {
		how = "at its permission dialog"
	}
	fmt.Fprintf(e.stdout, "answered %s: %s to %s, %s\n", o.Name, answerWords(o.Answer), screen.Printable(res.What, 200), how)
	return nil
}

// createExclusive makes the file at path with data whole, or not at all when it exists
// already: written aside, then linked into place (a link never replaces), so that a reader
// never sees it torn and a second answer never overwrites the first.
func createExclusive(path string, data []byte) error {
	aside := path + ".new-" + ralph.NewRequestID()
	if err := state.WriteFileAtomic(aside, data, 0o600); err != nil {
		return err
	}
	defer os.Remove(aside)
	return os.Link(aside, path)
}
