package swarm

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/proc"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// keepRegent runs the Regent as its child, starting it again a second after it dies. While
// another Regent holds the state directory (one started before this keeper), it waits for that
// one to go. A Regent that leaves on purpose closes the window, and this keeper with it; the
// keeper also leaves when the Regent ended on purpose or the state directory is gone.
func keepRegent(e *env) error {
	lock, ok, err := state.TryLock(regent.FilesOf(e.Dir()).Keeper)
	if err != nil {
		return fail("%w", err)
	}
	if !ok {
		removeOwnPane(e) // another keeper is on it
		return nil
	}
	defer lock.Unlock()
	exe, err := os.Executable()
	if err != nil {
		return fail("%w", err)
	}
	// Caught rather than ignored, so the Regent it starts gets default handling back.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	files, rc := regent.FilesOf(e.Dir()), regent.NewClient(e.Dir())
	var deaths []time.Time
	for {
		if rc.Alive() {
			// Blocks, costing nothing, until that Regent is gone.
			if held, err := state.AcquireLock(files.Lock); err == nil {
				held.Unlock()
			}
		}
		clean, err := runKeptChild(regentArgv(e, exe, "__serve"), 0)
		if _, serr := os.Stat(e.Dir().Root); err != nil || clean || os.IsNotExist(serr) {
			removeOwnPane(e)
			return err
		}
		if why := regent.CannotListen(e.Dir()); why != "" {
			// Starting it again would fail the same way every second; the spawn or command
			// that needs it next says why (see ensureRegent) and tries again.
			removeOwnPane(e)
			return fail("the Regent %s; not starting it again", why)
		}
		var loop bool
		if deaths, loop = ralph.CrashLoop(append(deaths, time.Now()), time.Now()); loop {
			regentCrashLoop(e, len(deaths))
			removeOwnPane(e)
			return fail("the Regent died %d times in two minutes; not starting it again", len(deaths))
		}
		time.Sleep(time.Second)
	}
}

// serveRegent is the Regent's process: it holds the state directory's Regent lock, answers
// commands on its socket, and drives loops until none needs it.
func serveRegent(e *env) error {
	lock, ok, err := state.TryLock(regent.FilesOf(e.Dir()).Lock)
	if err != nil {
		return fail("%w", err)
	}
	if !ok {
		// Another Regent serves this directory; a keeper waits for it to go.
		return fail("another Regent (pid %d) serves %s", regent.NewClient(e.Dir()).PID(), e.Dir().Root)
	}
	logf, err := os.OpenFile(regent.FilesOf(e.Dir()).Log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		lock.Unlock()
		return fail("%w", err)
	}
	defer logf.Close()
	r := newRegent(e, timestamped{logf})
	// A Regent that returns drives no loop any more; one that makes way for another leaves
	// its loops running (see letGo) and exits without cancelling them.
	defer r.stop()
	r.endLeftChildren()
	ln, err := regent.Listen(e.Dir())
	if err != nil {
		why := fmt.Sprintf("cannot listen for commands: %v", err)
		r.say("%s", why)
		_ = os.WriteFile(regent.FilesOf(e.Dir()).Error, []byte(why+"\n"), 0o600)
		lock.Unlock()
		return fail("%s", why)
	}
	_ = os.Remove(regent.FilesOf(e.Dir()).Error)
	info := regent.Info{PID: os.Getpid(), Started: r.started.Format(time.RFC3339), Socket: e.Tmux().Socket(),
		Address: ln.Addr().String()}
	_ = regent.WriteInfo(e.Dir(), info)
	r.say("started (pid %d)", info.PID)
	go r.serveRequests(ln)
	defer r.onSignals()()
	if r.run(lock) {
		// Asked to make way for a new Regent: the loops are left as they are, and every
		// lock goes with this process, all at once.
		r.letGo()
		removeOwnPane(e)
		os.Exit(0)
	}
	r.watch.stop()
	_ = ln.Close()
	lock.Unlock()
	removeOwnPane(e)
	return nil
}

// serveRequests answers one request per connection from processes of this user.
func (r *regentDaemon) serveRequests(ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go r.answer(conn)
	}
}

func (r *regentDaemon) answer(conn net.Conn) {
	defer conn.Close()
	if !regent.SamePeer(conn) {
		fmt.Fprintln(conn, regent.Refusal("not allowed"))
		return
	}
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return
	}
	req, arg := regent.ParseRequest(line)
	switch req {
	case regent.WakeRequest:
		r.wakeUp()
		fmt.Fprintln(conn, regent.OK)
	case regent.StatusRequest:
		data, _ := json.Marshal(r.report())
		fmt.Fprintln(conn, string(data))
	case regent.DropRequest:
		r.drop(arg)
		waitFor(10*time.Second, func() bool { return !r.driving(arg) })
		fmt.Fprintln(conn, regent.OK)
	case regent.QuitRequest:
		r.say("asked to restart")
		fmt.Fprintln(conn, regent.OK)
		r.quitOnce.Do(func() { close(r.quit) })
	default:
		fmt.Fprintln(conn, regent.Refusal(fmt.Sprintf("unknown request %q", req)))
	}
}

func (r *regentDaemon) driving(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loops[name] != nil
}

// letGo leaves every loop to the next Regent: no monitor pid of this process stays on record,
// so the next one takes the loops over without counting a resurrection. The agents are not
// touched.
func (r *regentDaemon) letGo() {
	for _, name := range r.names() {
		releaseLoop(ralph.DirFor(r.e.Dir(), name))
	}
}

// onSignals makes SIGTERM and a first SIGINT pause every loop after its current iteration,
// and SIGQUIT or a second SIGINT end their agents at once, as signals to a loop's own monitor
// do. It returns what undoes it.
func (r *regentDaemon) onSignals() func() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP)
	go func() {
		interrupts := 0
		for s := range sigs {
			switch {
			case s == syscall.SIGHUP:
				continue // the tmux server is going; so are the agents
			case s == syscall.SIGQUIT, s == syscall.SIGINT && interrupts > 0:
				r.say("received %s: ending every agent now", worker.SignalName(s))
				r.abortAll()
				continue
			case s == syscall.SIGINT:
				interrupts++
			}
			r.say("received %s: pausing every loop after its current iteration", worker.SignalName(s))
			r.pauseAll(worker.SignalName(s))
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(sigs)
	}
}

// report is what `swarm regent status` shows.
func (r *regentDaemon) report() regent.Report {
	up := time.Since(r.started)
	rep := regent.Report{PID: os.Getpid(), Started: r.started.Format(time.RFC3339), UptimeSeconds: up.Seconds(),
		Loops: r.names(), Events: r.events.Load(), Watching: r.watch.describe()}
	if up > 0 {
		rep.EventsPerSecond = float64(rep.Events) / up.Seconds()
	}
	cpu, rss := proc.Usage(os.Getpid())
	rep.CPUSeconds, rep.RSSBytes = cpu.Seconds(), rss
	r.mu.Lock()
	rep.Panics = r.panics
	r.mu.Unlock()
	if rep.Loops == nil {
		rep.Loops = []string{}
	}
	return rep
}
