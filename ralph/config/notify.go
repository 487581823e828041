package config

import (
	"fmt"
	"slices"
	"strings"
)

// The [notify] table of swarm.toml and the user's config.toml:
//
//	[notify]
//	desktop = true
//	tmux = true
//	webhook = "https://hooks.example.com/swarm"
//	command = "./notify.sh"
//	events = ["done", "failed", "blocked"]

// notifyKeys are the keys of [notify], for the message about an unknown one.
const notifyKeys = "desktop, tmux, webhook, command, events"

// Notify says where a loop's notifications go.
type Notify struct {
	Desktop bool   `json:"desktop,omitempty"` // notify-send, or osascript on macOS
	Tmux    bool   `json:"tmux,omitempty"`    // a message on the clients attached to swarm's server
	Webhook string `json:"webhook,omitempty"` // receives the event as a JSON POST
	Command string `json:"command,omitempty"` // run with sh -c, the event in its environment
	// Events limits the notifications to these events; empty: all of them.
	Events []string `json:"events,omitempty"`
}

// Any reports whether a notification goes anywhere.
func (n Notify) Any() bool {
	return n.Desktop || n.Tmux || n.Webhook != "" || n.Command != ""
}

// Wants reports whether event is one to notify of.
func (n Notify) Wants(event string) bool {
	return n.Any() && (len(n.Events) == 0 || slices.Contains(n.Events, event))
}

// Channels names where notifications go, for status lines: "desktop, webhook".
func (n Notify) Channels() []string {
	var out []string
	for _, c := range []struct {
		on   bool
		name string
	}{{n.Desktop, "desktop"}, {n.Tmux, "tmux"}, {n.Webhook != "", "webhook"}, {n.Command != "", "command"}} {
		if c.on {
			out = append(out, c.name)
		}
	}
	return out
}

// Notify is the [notify] tables of the files, a later file's overriding an earlier one's
// setting by setting.
func (c *Config) Notify() (Notify, error) {
	var n Notify
	for _, f := range c.files {
		if err := f.notify(&n); err != nil {
			return Notify{}, err
		}
	}
	return n, nil
}

// notify applies the file's [notify] table (when it has one) to n.
func (f *file) notify(n *Notify) error {
	if f.err != nil {
		return f.err
	}
	var table map[string]any
	if err := f.table("notify", &table); err != nil {
		return err
	}
	if err := f.allows("[notify]"); err != nil {
		return err
	}
	for key, v := range table {
		if err := setNotifyKey(n, key, v); err != nil {
			return fmt.Errorf("%s: [notify]: %w", f.path, err)
		}
	}
	return nil
}

func setNotifyKey(n *Notify, key string, v any) error {
	switch key {
	case "desktop", "tmux":
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("%s: expected true or false, got %s", key, tomlText(v))
		}
		if key == "desktop" {
			n.Desktop = b
		} else {
			n.Tmux = b
		}
	case "webhook", "command":
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: expected a quoted string, got %s", key, tomlText(v))
		}
		if key == "webhook" {
			n.Webhook = s
		} else {
			n.Command = s
		}
	case "events":
		list, ok := v.([]any)
		if !ok {
			return fmt.Errorf("events: expected an array of event names, got %s", tomlText(v))
		}
		n.Events = nil
		for _, e := range list {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("events: expected event names, got %s", tomlText(e))
			}
			n.Events = append(n.Events, strings.TrimSpace(s))
		}
	default:
		return fmt.Errorf("unknown key %q (known: %s)", key, notifyKeys)
	}
	return nil
}
