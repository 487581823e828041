package ralph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/swarm-dev/swarm/ralph/config"
)

// Notifications: the moments a person running loops unattended wants to hear about (a loop
// finished, failed, sits on a dialog, waits for a usage limit, ...) and where to tell them.
// The settings travel with the loop state, so a resurrected monitor tells the same places.

// The events a loop notifies of, by the name the webhook's JSON and the command's
// SWARM_EVENT carry.
const (
	NotifyDone        = "done"        // the loop finished its work: a done marker or pattern, the DONE file, checks passed
	NotifyStopped     = "stopped"     // the loop ended without finishing: out of iterations, the agent asked to wait
	NotifyFailed      = "failed"      // the loop stopped as failed (supervision gave up)
	NotifyStagnated   = "stagnated"   // iterations in a row changed nothing in git
	NotifyBlocked     = "blocked"     // the agent sits on a dialog the prompt cannot go into
	NotifyPermission  = "permission"  // the agent waits for a permission (its own signal)
	NotifyUsageLimit  = "usage_limit" // the agent's plan is spent; the loop waits for the reset
	NotifyBudget      = "budget"      // the loop's cost passed --max-cost
	NotifyResurrected = "resurrected" // the loop's monitor died and was started again
	NotifyRollback    = "rollback"    // the test gate reverted an iteration's commits
)

// NotifyEvents are all the events, in the order the documentation lists them.
var NotifyEvents = []string{NotifyDone, NotifyStopped, NotifyFailed, NotifyStagnated, NotifyBlocked, NotifyPermission, NotifyUsageLimit,
	NotifyBudget, NotifyResurrected, NotifyRollback}

// NotifyUsage is the --notify flag's help.
const NotifyUsage = "notify of loop events (repeatable): desktop, tmux, webhook=URL, command=CMD, " +
	"events=done,failed,... or off (none, whatever the config files say)"

// ApplyNotifySpec changes n by one --notify value.
func ApplyNotifySpec(n *config.Notify, spec string) error {
	key, value, hasValue := strings.Cut(strings.TrimSpace(spec), "=")
	switch {
	case key == "desktop" && !hasValue:
		n.Desktop = true
	case key == "tmux" && !hasValue:
		n.Tmux = true
	case key == "off" && !hasValue:
		*n = config.Notify{}
	case key == "webhook" && hasValue:
		n.Webhook = value
	case key == "command" && hasValue:
		n.Command = value
	case key == "events" && hasValue:
		n.Events = splitList(value)
	case strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://"):
		n.Webhook = spec
	default:
		return fmt.Errorf("invalid --notify '%s' (expected desktop, tmux, webhook=URL, command=CMD, events=LIST or off)", spec)
	}
	return nil
}

// checkNotify rejects settings that cannot work, wherever they came from.
func checkNotify(n config.Notify) error {
	if n.Webhook != "" && !strings.HasPrefix(n.Webhook, "http://") && !strings.HasPrefix(n.Webhook, "https://") {
		return fmt.Errorf("invalid notify webhook '%s' (expected an http:// or https:// URL)", n.Webhook)
	}
	if strings.TrimSpace(n.Command) == "" && n.Command != "" {
		return fmt.Errorf("notify command is empty")
	}
	for _, e := range n.Events {
		if !slices.Contains(NotifyEvents, e) {
			return fmt.Errorf("unknown notify event '%s' (known: %s)", e, strings.Join(NotifyEvents, ", "))
		}
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ResolveNotify is where a loop started where cfg was loaded notifies: the [notify] tables of
// the user's config.toml and the project's swarm.toml (cfg.Notify; the project's overrides
// setting by setting), then the --notify values in order.
func ResolveNotify(cfg *config.Config, specs []string) (config.Notify, error) {
	n, err := cfg.Notify()
	if err != nil {
		return config.Notify{}, err
	}
	for _, s := range specs {
		if err := ApplyNotifySpec(&n, s); err != nil {
			return config.Notify{}, err
		}
	}
	if err := checkNotify(n); err != nil {
		return config.Notify{}, err
	}
	return n, nil
}
