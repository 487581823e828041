package ralph

import (
	"fmt"
	"os"
	"strings"

	"github.com/BurntSushi/toml"
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

// notifyFromFile applies the [notify] table of one file (when it has one) to n.
func notifyFromFile(path string, n *NotifyConfig) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc struct {
		Notify map[string]any `toml:"notify"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return tomlError(path, data, err)
	}
	if err := checkConsent(path, data, "[notify]"); err != nil {
		return err
	}
	for key, v := range doc.Notify {
		if err := setNotifyKey(n, key, v); err != nil {
			return fmt.Errorf("%s: [notify]: %v", path, err)
		}
	}
	return nil
}

func setNotifyKey(n *NotifyConfig, key string, v any) error {
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
