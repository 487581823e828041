package driver

import (
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/ralph/words"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/tmux"
)

// A loop's notifications: which of a decision's moments go out (ralph/notify_policy.go), to the
// channels of the loop's [notify] settings, and supervision's escalation to its webhook when
// the loop gives up. The other features and the driver send their own notices through it.

// notifyServices are what the notifications ask of the driver: the one slice of its services
// (services.go) it uses.
type notifyServices interface {
	dir() ralph.Dir
	name() string
	clock() Clock
	say(format string, args ...any)
	supervisionSay(format string, args ...any)
	supervisionPrint(text string)
	logEvent(kind, text string)
	updateSupervision(fn func(*ralph.SupervisionState))
	workDir(st *ralph.State) string
	lastOutput(a agent, iteration, n int) []string
	showMessage(text string) error
}

// notifications is the feature that sends a loop's notifications; it keeps the deliveries
// under way.
type notifications struct {
	drv   notifyServices
	notes *notifier
}

func newNotifications(drv notifyServices) *notifications {
	ns := &notifications{drv: drv}
	ns.notes = &notifier{failed: ns.notifyFailed}
	return ns
}

func (ns *notifications) featureName() string { return "notify" }

// decided sends a decision's notifications.
func (ns *notifications) decided(cur *ralph.State, a agent, dec ralph.Decision) {
	ns.announce(cur, a, dec)
}

// lastLinesSent is how much of the agent's output a notification carries.
const lastLinesSent = 20

// announce sends a decision's notifications, cur being the state it left.
func (ns *notifications) announce(cur *ralph.State, a agent, dec ralph.Decision) {
	escalation := ns.escalation(cur, dec.Escalate)
	if escalation == nil && (cur.Notify == nil || !cur.Notify.Any()) {
		return // nowhere to send them: neither the chain nor the screen need be read
	}
	facts := ralph.NoticeFacts{MoreSteps: dec.Ended && ns.chainGoesOn(cur)}
	if f := cur.LastFailure; f != nil && f.Iteration == cur.CurrentIteration {
		facts.LastFailure = f
	}
	notices := ralph.Notices(dec, facts)
	if escalation != nil && !hasEndNotice(notices) {
		notices = append(notices, ralph.Notice{Event: ralph.NotifyFailed, Reason: dec.Escalate})
	}
	if len(notices) == 0 {
		return
	}
	last := ns.drv.lastOutput(a, cur.CurrentIteration, lastLinesSent)
	for _, n := range notices {
		var extra *channel
		if escalation != nil && isEndEvent(n.Event) {
			extra, escalation = escalation, nil
		}
		ns.send(cur, n, last, extra)
	}
}

// escalation records that supervision gave up on the loop for reason (nothing when reason is
// empty) and returns the channel to its webhook, nil when it has none.
func (ns *notifications) escalation(cur *ralph.State, reason string) *channel {
	if reason == "" {
		return nil
	}
	ns.drv.logEvent("ESCALATE", reason)
	ns.drv.updateSupervision(func(rs *ralph.SupervisionState) { rs.Escalations++ })
	rc := ralph.EffectiveSupervision(cur.Supervision)
	if !rc.Enabled || rc.Webhook == "" {
		ns.drv.supervisionSay("%s — stopping and reporting", reason)
		return nil
	}
	return ns.escalationHook(rc.Webhook, reason)
}

// escalationHook is supervision's webhook at url, for an escalation about what: once the
// webhook answered, supervision says whether it took it.
func (ns *notifications) escalationHook(url, what string) *channel {
	c := webhookChannel(url)
	c.after = func(err error) {
		if err != nil {
			ns.supervisionSayLater("%s — webhook failed: %v", what, err)
		} else {
			ns.supervisionSayLater("%s — escalated to webhook", what)
		}
	}
	return &c
}

// webhookChannel posts notifications to url.
func webhookChannel(url string) channel {
	return channel{name: "webhook", url: url, send: func(n Notification) error { return postJSON(url, n) }}
}

// send hands one notice to the channels that want it (and to extra), in the background.
func (ns *notifications) send(cur *ralph.State, n ralph.Notice, last []string, extra *channel) {
	var channels []channel
	nc := config.Notify{}
	if cur.Notify != nil {
		nc = *cur.Notify
	}
	if nc.Wants(n.Event) {
		channels = ns.channels(cur, nc)
	}
	if extra != nil {
		channels = withoutURL(channels, extra.url)
		channels = append(channels, *extra)
	}
	if len(channels) == 0 {
		return
	}
	ns.notes.add(delivery{channels: channels, note: Notification{Event: n.Event, Worker: ns.drv.name(),
		Iteration: cur.CurrentIteration, Reason: n.Reason, Status: cur.Status.String(), LastLines: last,
		Time: ns.drv.clock().Now().Format(time.RFC3339)}})
}

// withoutURL leaves out a [notify] webhook at the address supervision's escalation goes to:
// one POST, not two.
func withoutURL(channels []channel, url string) []channel {
	out := channels[:0:0]
	for _, c := range channels {
		if c.url != url {
			out = append(out, c)
		}
	}
	return out
}

// channels are the places nc sends notifications to.
func (ns *notifications) channels(cur *ralph.State, nc config.Notify) []channel {
	var out []channel
	if nc.Desktop {
		out = append(out, channel{name: "desktop", send: desktopNotify})
	}
	if nc.Tmux {
		out = append(out, channel{name: "tmux", send: ns.tmuxMessage})
	}
	if url := nc.Webhook; url != "" {
		out = append(out, webhookChannel(url))
	}
	if cmd := nc.Command; cmd != "" {
		dir := ns.drv.workDir(cur)
		out = append(out, channel{name: "command", send: func(n Notification) error { return runNotifyCommand(cmd, dir, n) }})
	}
	return out
}

// tmuxMessage shows a notification on the clients attached to swarm's tmux server.
func (ns *notifications) tmuxMessage(n Notification) error {
	err := ns.drv.showMessage(n.Title() + ": " + n.Body())
	if err == tmux.ErrNoServer {
		return nil
	}
	return err
}

// chainGoesOn reports whether the loop is a chain step whose ending starts another step.
func (ns *notifications) chainGoesOn(cur *ralph.State) bool {
	cs, err := ns.drv.dir().LoadChain()
	if err != nil || cs == nil || cs.CurrentStep != cur.ChainStep {
		return false
	}
	return cs.StepEnded(ralph.OutcomeOf(cur), cur.ExitReason, ns.drv.clock().Now()) == ralph.ChainNext
}

// notifyFailed reports a notification a channel could not deliver, in the loop's output and
// event log. It runs in the delivering goroutine, so it writes directly (see supervisionSayLater).
func (ns *notifications) notifyFailed(ch string, n Notification, err error) {
	text := "notification " + n.Event + " to " + ch + " failed: " + words.OneLine(err.Error())
	ns.drv.say("%s", text)
	_ = ns.drv.dir().LogEvent(ns.drv.clock().Now(), "NOTIFY", text)
}

// supervisionSayLater is supervisionSay from another goroutine: it leaves the loop's own
// bookkeeping of failed writes alone.
func (ns *notifications) supervisionSayLater(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	ns.drv.supervisionPrint(text)
	_ = ns.drv.dir().LogEvent(ns.drv.clock().Now(), supervisionEvent, text)
}

// WaitNotifications waits up to limit for the loop's notifications still under way (a
// foreground loop's process is about to end) and reports whether they all went.
func (l *Loop) WaitNotifications(limit time.Duration) bool { return l.notify.notes.wait(limit) }

func hasEndNotice(ns []ralph.Notice) bool {
	for _, n := range ns {
		if isEndEvent(n.Event) {
			return true
		}
	}
	return false
}

// isEndEvent: the events that end a loop, which supervision's escalation goes with.
func isEndEvent(e string) bool {
	return e == ralph.NotifyFailed || e == ralph.NotifyBudget || e == ralph.NotifyStagnated || e == ralph.NotifyDone ||
		e == ralph.NotifyStopped
}
