package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/proc"
	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/heartbeat"
	"github.com/swarm-dev/swarm/swarm/loop"
	"github.com/swarm-dev/swarm/swarm/regent"
	"github.com/swarm-dev/swarm/swarm/worker"
)

// Serve is the Regent's process: it holds the state directory's Regent lock, answers
// commands on its socket, drives loops and sends heartbeats until neither needs it.
func Serve(m *worker.Machine) error {
	lock, ok, err := state.TryLock(regent.FilesOf(m.Dir()).Lock)
	if err != nil {
		return err
	}
	if !ok {
		// Another Regent serves this directory; a keeper waits for it to go.
		return fmt.Errorf("another Regent (pid %d) serves %s", regent.NewClient(m.Dir()).PID(), m.Dir().Root)
	}
	// Its warnings (a corrupt record file set aside, say) go to its log: it has no terminal.
	log := loop.TimedLog(regent.FilesOf(m.Dir()).Log)
	m = m.WarningsTo(log)
	r := newDaemon(m, log)
	// A Regent that returns drives no loop any more; one that makes way for another leaves
	// its loops running (see letGo) and exits without cancelling them.
	defer r.stop()
	r.endLeftChildren()
	ln, err := regent.Listen(m.Dir())
	if err != nil {
		why := fmt.Sprintf("cannot listen for commands: %v", err)
		r.say("%s", why)
		_ = os.WriteFile(regent.FilesOf(m.Dir()).Error, []byte(why+"\n"), 0o600)
		lock.Unlock()
		return errors.New(why)
	}
	_ = os.Remove(regent.FilesOf(m.Dir()).Error)
	info := regent.Info{PID: os.Getpid(), Started: r.started.Format(time.RFC3339), Socket: m.Tmux().Socket(),
		Address: ln.Addr().String()}
	_ = regent.WriteInfo(m.Dir(), info)
	r.say("started (pid %d)", info.PID)
	go r.serveRequests(ln)
	// The heartbeats' goroutine has a context of its own: a Regent that makes way for
	// another stops beating (a beat being typed is finished first) but cancels no loop.
	beatCtx, stopBeating := context.WithCancel(context.Background())
	beating := make(chan struct{})
	go r.beat(beatCtx, beating)
	defer r.onSignals()()
	quit := r.run(lock)
	stopBeating()
	<-beating
	if quit {
		// Asked to make way for a new Regent: the loops are left as they are, and every
		// lock goes with this process, all at once.
		r.letGo()
		regent.RemoveOwnPane(m)
		os.Exit(0)
	}
	r.watch.stop()
	_ = ln.Close()
	lock.Unlock()
	regent.RemoveOwnPane(m)
	return nil
}

// serveRequests answers one request per connection from processes of this user.
func (r *daemon) serveRequests(ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		go r.answer(conn)
	}
}

func (r *daemon) answer(conn net.Conn) {
	defer conn.Close()
	if !SamePeer(conn) {
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
		r.wakeAll()
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

func (r *daemon) driving(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loops[name] != nil
}

// letGo leaves every loop to the next Regent: no monitor pid of this process stays on record,
// so the next one takes the loops over without counting a resurrection. The agents are not
// touched.
func (r *daemon) letGo() {
	for _, name := range r.names() {
		loop.Release(ralph.DirFor(r.m.Dir(), name))
	}
}

// onSignals makes SIGTERM and a first SIGINT pause every loop after its current iteration,
// and SIGQUIT or a second SIGINT end their agents at once, as signals to a loop's own monitor
// do. It returns what undoes it.
func (r *daemon) onSignals() func() {
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
func (r *daemon) report() regent.Report {
	up := time.Since(r.started)
	rep := regent.Report{PID: os.Getpid(), Started: r.started.Format(time.RFC3339), UptimeSeconds: up.Seconds(),
		Loops: r.names(), Heartbeats: heartbeat.StoreFor(r.m.Dir()).ActiveWorkers(), Events: r.events.Load(),
		Watching: r.watch.describe()}
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

// waitFor polls cond until it holds or d has passed.
func waitFor(d time.Duration, cond func() bool) {
	deadline := time.Now().Add(d)
	for !cond() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}
