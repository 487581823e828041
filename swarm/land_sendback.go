package swarm

import (
	"errors"
	"fmt"
	"os"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/swarm/land"
	"github.com/swarm-dev/swarm/swarm/loop"
)

// resumeWithFailure resumes the loop of a branch that did not land, its next iteration told
// what failed (a note the iteration's start appends to the prompt, see
// ralph.Dir.NextPromptNote), and says how that went; a worker that is no loop, or a loop that
// cannot go on, is only reported, as the branch stays sent back either way.
func resumeWithFailure(e *env, rec *land.Record) string {
	ld := ralph.DirFor(e.Dir(), rec.Worker)
	if !ld.Exists() {
		return "not sent back: no ralph loop to resume (fix the branch, then land it again)"
	}
	if err := land.WriteSendBackNote(ld, rec); err != nil {
		return fmt.Sprintf("not sent back: %v", err)
	}
	// The loop is done (that is how --all offered it), and its branch did not land: running
	// its task again, told what failed, is the point.
	res, err := loop.On(e.Machine).Resume(rec.Worker, ralph.ResumeRequest{Again: true})
	if err == nil {
		err = loop.On(e.Machine).WakeDriver(rec.Worker, res)
	}
	if err != nil {
		_ = os.Remove(ld.NextPromptNote())
		if errors.Is(err, ralph.ErrFinished) {
			return fmt.Sprintf("not sent back: its loop %v; resume it with 'swarm ralph resume %s --again --max-iterations N'", err, rec.Worker)
		}
		return fmt.Sprintf("not sent back: %v", err)
	}
	if err := land.MarkResumed(e.Dir(), rec); err != nil {
		e.warnf("landing record of %s: %v", rec.Worker, err)
	}
	return "sent back: its loop resumed, told what failed"
}
