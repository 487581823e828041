package swarm

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
)

// The wait of `wait --until`: it looks at the workers when the kernel tells that a file that
// says what they do changed (the records, a loop's state, an exit code recorded, the event
// log), when a worker would turn idle if its screen stays still, and every untilSafetyLook
// for an end that leaves no trace in a file (a tmux window closed by hand). Nothing else runs
// while it waits.

// untilSafetyLook is how often the workers are looked at though no file changed.
const untilSafetyLook = 5 * time.Second

// untilJSON is one worker's line of `wait --until --format json`.
type untilJSON struct {
	Worker      string    `json:"worker"`
	Until       string    `json:"until"`
	Reached     bool      `json:"reached"`
	Status      string    `json:"status"` // the worker's process: running or exited
	State       string    `json:"state"`  // its state word (done, blocked, running, ...)
	NeedsPerson *needJSON `json:"needs_person"`
	Timeout     bool      `json:"timeout"`
	Time        string    `json:"time"`
}

func runWaitUntil(e *env, o waitOptions) error {
	ws, _, err := e.Targets(o.Names, o.All, running)
	if err != nil {
		return err
	}
	// --all takes the workers the state applies to; one named that it does not is an error.
	kept := ws[:0]
	for _, w := range ws {
		why := untilNeeds(o.Until, w)
		if why != "" && !o.All {
			return fail("%s", why)
		}
		if why == "" {
			kept = append(kept, w)
		}
	}
	ws = kept
	watch := state.WatchFiles(untilDirs(e, ws), untilFiles(ws))
	defer watch.Close()
	var deadline time.Time
	if o.Timeout > 0 {
		deadline = time.Now().Add(seconds(o.Timeout))
	}
	pending := map[string]bool{}
	for _, w := range ws {
		pending[w.Name] = true
	}
	code := ExitOK
	for {
		facts, err := e.lookUntil(ws, pending)
		if err != nil {
			return err
		}
		wake, never := o.untilRound(e, ws, pending, facts)
		if never {
			code = ExitError
		}
		if len(pending) == 0 {
			return exitCode(code)
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			for _, w := range ws {
				if pending[w.Name] {
					o.untilTimedOut(e, w.Name, facts[w.Name])
				}
			}
			return exitCode(ExitError)
		}
		if !deadline.IsZero() && deadline.Before(wake) {
			wake = deadline
		}
		untilNext(watch, wake)
	}
}

// untilRound decides for each pending worker what was seen of it: one that reached the goal,
// or never will, is said and no longer pending. It returns when to look again though nothing
// changed, and whether a worker never will.
func (o waitOptions) untilRound(e *env, ws []*state.Worker, pending map[string]bool, facts map[string]untilFacts) (time.Time, bool) {
	wake := time.Now().Add(untilSafetyLook)
	never := false
	for _, w := range ws {
		if !pending[w.Name] {
			continue
		}
		v := decideUntil(o.Until, w.Name, facts[w.Name])
		switch {
		case v.reached || v.never:
			o.untilSay(e, w.Name, v, facts[w.Name])
			delete(pending, w.Name)
			never = never || v.never
		case !v.wake.IsZero() && v.wake.Before(wake):
			wake = v.wake
		}
	}
	return wake, never
}

// untilNext waits until the watched files change or wake comes.
func untilNext(watch *state.Watch, wake time.Time) {
	t := time.NewTimer(max(time.Until(wake), 0))
	defer t.Stop()
	select {
	case <-watch.Changed():
	case <-t.C:
	}
}

// untilDirs are the directories whose files say what the workers do: the state directory
// (the records, the event log), its logs (exit codes) and each loop's directory.
func untilDirs(e *env, ws []*state.Worker) []string {
	root := e.Dir().Root
	dirs := []string{root}
	for _, d := range []string{filepath.Join(root, "logs")} {
		if _, err := os.Stat(d); err == nil {
			dirs = append(dirs, d)
		}
	}
	for _, w := range ws {
		if d := e.Dir().RalphDir(w.Name); w.Metadata["ralph"] == true && exists(d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// untilFiles takes the names of those files: the records and a loop's state (state.json),
// the event log, the workers' exit codes.
func untilFiles(ws []*state.Worker) func(string) bool {
	exits := map[string]bool{}
	for _, w := range ws {
		exits[w.Name+".exit"] = true
	}
	return func(name string) bool {
		return name == "state.json" || strings.HasPrefix(name, "events.jsonl") || exits[name]
	}
}

// lookUntil looks at the pending workers: their records reconciled with tmux, their loops'
// states, their windows' last output.
func (e *env) lookUntil(ws []*state.Worker, pending map[string]bool) (map[string]untilFacts, error) {
	lv, err := e.Live()
	if err != nil {
		return nil, err
	}
	all, err := e.Dir().LoadWorkers(e.warnErr)
	if err != nil {
		return nil, fail("%w", err)
	}
	now := time.Now()
	facts := map[string]untilFacts{}
	for _, w := range ws {
		if !pending[w.Name] {
			continue
		}
		f := untilFacts{now: now}
		if f.w = all.Get(w.Name); f.w != nil {
			e.Reconcile(lv, f.w)
			f.loop = workerLoop(e, f.w)
			f.goesOn = f.loop != nil && (f.loop.Status == ralph.StatusWaiting || f.loop.Status == ralph.StatusRunning) &&
				ralph.DirFor(e.Dir(), w.Name).MonitorAlive()
			if p, ok := lv.Pane(f.w); ok && f.w.Tmux != nil {
				f.activity = p.Activity
			}
		}
		facts[w.Name] = f
	}
	return facts, nil
}

// untilSay prints that a worker reached the goal, or never will.
func (o waitOptions) untilSay(e *env, name string, v untilVerdict, f untilFacts) {
	if o.Format != "json" {
		e.say(v.line)
		return
	}
	_ = writeJSONLine(e.stdout, o.untilLine(name, v.reached, false, f))
}

func (o waitOptions) untilTimedOut(e *env, name string, f untilFacts) {
	if o.Format != "json" {
		e.say(untilTimeout(o.Until, name, f))
		return
	}
	_ = writeJSONLine(e.stdout, o.untilLine(name, false, true, f))
}

func (o waitOptions) untilLine(name string, reached, timeout bool, f untilFacts) untilJSON {
	j := untilJSON{Worker: name, Until: o.Until, Reached: reached, Status: "exited", Timeout: timeout, Time: stamp(time.Now())}
	status := ""
	if f.w != nil {
		status = f.w.Status
		if f.w.Status == state.StatusRunning {
			j.Status = "running"
		}
	}
	j.State = stateOf(status, nil, f.loop).word
	j.NeedsPerson = needOf(status, f.loop)
	return j
}

func (e *env) say(line string) { _, _ = e.stdout.Write([]byte(line + "\n")) }
