package driver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/ralph/screen"
	"github.com/swarm-dev/swarm/state"
)

// Delivering the prompt: wait for the agent's input prompt (naming any dialog in the way),
// paste the prompt, press Enter and check that the agent took it.

// promptDelivery gives an iteration's agent its prompt, and takes over a delivery a monitor that
// died left half done. It is a phase of its own so that what it does to the agent's input
// (the paste, the Enter, the input lock) is in one place, and what it needs of the rest of
// the loop is the short list of deliveryNeeds.
type promptDelivery struct {
	cfg     *Config
	pats    *patterns // where the done pattern's matcher for this prompt is kept
	pane    *paneFollower
	view    *agentView      // the agent as it is now, and its screen
	ending  *endOfIteration // where the iteration ends when the agent exits or never gets ready
	rec     *recorder
	notify  *notifications
	signals *signalWatch // the agent's own word that it started and took the prompt
	drv     deliveryNeeds
}

// deliveryNeeds are what a delivery asks of the loop: a wait, the loop's status, and its ways
// of stopping (at once, or failed).
type deliveryNeeds interface {
	wait(d time.Duration, exited <-chan struct{}, woken <-chan struct{})
	statusNow() ralph.Status
	abortRequested() bool
	abortNow(a agent)
	fail(reason string, err error) error
}

// deliver waits for the agent's input prompt, then gives it the prompt.
func (dv *promptDelivery) deliver(st *ralph.State) error {
	a := dv.view.now()
	if a.dead {
		dv.ending.end(st, dv.view.settled(), ralph.EndExited)
		return nil
	}
	prompt, err := state.ReadFile(dv.cfg.Dir.PromptCopy())
	if err != nil {
		// The copy is written before the agent starts; without it, read the file again.
		p, perr := ReadPrompt(st.PromptFile)
		if perr != nil {
			return dv.drv.fail("prompt_unreadable", perr)
		}
		prompt = []byte(p)
	}
	dv.pats.matcher = screen.NewDoneMatcher(dv.pats.doneRE, string(prompt))
	if st.PromptMode == config.PromptStdin {
		dv.rec.note(func(s *ralph.State) error {
			s.Phase = ralph.PhaseWorking
			s.DoneBaseline = 0
			return nil
		})
		return nil
	}
	a, lines, ok := dv.waitReady(st)
	if !ok {
		return nil
	}
	base := 0
	if dv.pats.matcher != nil {
		if full, err := dv.view.capture(a, dv.cfg.HistoryLines); err == nil {
			base = dv.pats.matcher.Count(full)
		}
	}
	moved := dv.submit(st, a, lines, string(prompt), base)
	dv.delivered(base, moved)
	return nil
}

// delivered records that the agent has its prompt and is now watched, its screen last moved
// at moved.
func (dv *promptDelivery) delivered(base int, moved time.Time) {
	dv.rec.note(func(s *ralph.State) error {
		s.Phase = ralph.PhaseWorking
		s.DoneBaseline = base
		// Quiet time counts from the prompt, not from the agent's start: a slow start must not
		// use up the inactivity or hang timeout.
		s.LastScreenChange = moved.Format(ralph.TimeFormat)
		return nil
	})
}

// paste types the prompt into the agent's input. It is staged in a named tmux buffer first and
// the name recorded before the paste: a monitor that dies at any point from there on leaves its
// successor able to tell whether the paste happened (see redeliver), so the prompt is never
// pasted twice into one agent.
func (dv *promptDelivery) paste(a agent, prompt string, base int) error {
	buf := "swarm-" + uuid.NewString()
	if err := dv.cfg.Tmux.StageBuffer(buf, prompt); err != nil {
		return err
	}
	dv.rec.note(func(s *ralph.State) error {
		s.Phase, s.DoneBaseline, s.PasteBuffer = ralph.PhaseDelivering, base, buf
		return nil
	})
	err := dv.cfg.Tmux.PasteBuffer(a.paneID, buf, true)
	dieAfterPaste()
	return err
}

// dieAfterPasteEnv names a file: a process with it in its environment kills itself right after
// its first paste while the file does not exist (creating it first), as a monitor killed at that
// moment would die. How the scenarios show what a successor does then.
const dieAfterPasteEnv = "SWARM_TEST_DIE_AFTER_PASTE"

func dieAfterPaste() {
	flag := os.Getenv(dieAfterPasteEnv)
	if flag == "" {
		return
	}
	f, err := os.OpenFile(flag, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	_ = f.Close()
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

// redeliver takes over an iteration whose monitor died while it gave the agent its prompt: a
// prompt staged and still in its buffer was not pasted (it is delivered afresh); one whose
// buffer is gone was, and only its Enter may be missing.
func (dv *promptDelivery) redeliver(st *ralph.State) error {
	if st.Phase == ralph.PhaseDelivering && st.PasteBuffer != "" {
		staged, err := dv.cfg.Tmux.HasBuffer(st.PasteBuffer)
		if err == nil && !staged {
			dv.resumeDelivery(st)
			return nil
		}
		dv.cfg.Tmux.DeleteBuffer(st.PasteBuffer)
	}
	return dv.deliver(st)
}

// resumeDelivery takes over an iteration whose monitor died between pasting the prompt and
// seeing the agent take it: if the agent still sits at its input prompt, the Enter that
// submits it is what is missing.
func (dv *promptDelivery) resumeDelivery(st *ralph.State) {
	a := dv.view.now()
	if a.dead {
		dv.ending.end(st, dv.view.settled(), ralph.EndExited)
		return
	}
	if lines, err := dv.view.capture(a, 0); err == nil && screen.Classify(strings.Join(lines, "\n"), dv.pats.readyRE).Kind == screen.Ready {
		dv.rec.say("taking over while the prompt was being delivered; pressing Enter")
		_ = dv.cfg.Tmux.SendKeys(a.paneID, "Enter")
	}
	dv.delivered(st.DoneBaseline, dv.cfg.Clock.Now())
}

// blocked reports a dialog in the way of the prompt; the prompt is never typed into one.
func (dv *promptDelivery) blocked(st *ralph.State, a agent, dialog string, lines []string) {
	dv.rec.say("agent is waiting at %s; answer it with 'swarm attach %s' (the prompt is not typed into a dialog)", screen.DialogDescription(dialog), dv.cfg.Name)
	dv.rec.logEvent("BLOCKED", fmt.Sprintf("iteration %d dialog=%s", st.CurrentIteration, dialog))
	now := dv.cfg.Clock.Now()
	dv.rec.update(func(x *ralph.State) error { x.WaitsAtDialog(dialog, now); return nil })
	dv.notify.send(st, ralph.Notice{Event: ralph.NotifyBlocked, Reason: "agent is waiting at " + screen.DialogDescription(dialog)}, screenTail(lines, lastLinesSent), nil)
}

// notReady ends an iteration whose agent never showed its input prompt.
func (dv *promptDelivery) notReady(st *ralph.State, a agent, timeout time.Duration, blocked string) {
	why := "no input prompt seen"
	if blocked != "" {
		why = "blocked by " + screen.DialogDescription(blocked)
	} else if kept := dv.keepUnknownScreen(st, a); kept != "" {
		why += ", on a screen swarm does not know; kept in " + kept + " to report"
	}
	secs := int(timeout.Seconds())
	dv.rec.say("agent not ready after %ds (%s)", secs, why)
	dv.rec.logEvent("TIMEOUT", fmt.Sprintf("iteration %d ready timeout %ds (%s)", st.CurrentIteration, secs, why))
	dv.ending.end(st, a, ralph.EndReadyTimeout)
}

// keepUnknownScreen keeps the screen of an agent that never got ready when swarm does not
// know it (neither an input prompt nor a dialog), so a user can report it; it returns where.
func (dv *promptDelivery) keepUnknownScreen(st *ralph.State, a agent) string {
	if a.gone {
		return ""
	}
	out, err := dv.cfg.Tmux.Capture(a.paneID, dv.cfg.HistoryLines)
	if err != nil || screen.Classify(out, dv.pats.readyRE).Kind != screen.Unknown {
		return ""
	}
	path := dv.cfg.Dir.UnknownScreenPath(st.CurrentIteration)
	if os.MkdirAll(filepath.Dir(path), 0o700) != nil || state.ReplaceFile(path, []byte(out), 0o600) != nil {
		return ""
	}
	now := dv.cfg.Clock.Now()
	dv.rec.update(func(x *ralph.State) error { x.ShowsUnknownScreen(path, now); return nil })
	return path
}
