package config

import (
	"fmt"

	"github.com/swarm-dev/swarm/ralph/words"
)

// Source is one configuration file a loop or worker was started under, as its state records
// it: which file, with what content, and whether its settings applied.
type Source struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"`
	// NotYours says why the file is not the user's alone ("it belongs to bob, not you",
	// "others can write to it (-rw-rw-rw-)"); "" when it is.
	NotYours string `json:"not_yours,omitempty"`
	// Allowed: a file not the user's alone applied, as they allowed this content. Ignored: it
	// did not; Changed: they had allowed it, with other content.
	Allowed bool `json:"allowed,omitempty"`
	Ignored bool `json:"ignored,omitempty"`
	Changed bool `json:"changed,omitempty"`
}

// Why is the reason an ignored file was ignored, in a few words.
func (s Source) Why() string {
	if s.Changed {
		return s.NotYours + ", and it changed since you allowed it"
	}
	return s.NotYours
}

// Warning is what a command started under an ignored file says of it, and how to apply it.
func (s Source) Warning() string {
	return fmt.Sprintf("ignored %s: %s; to apply its settings, read it, then run 'swarm allow %s'",
		shown(s.Path), s.Why(), words.ShellWord(s.Path))
}

// Text is the file as a loop's status lists it: its path, and what made it apply or not.
func (s Source) Text() string {
	switch {
	case s.Ignored:
		return fmt.Sprintf("%s (ignored: %s)", shown(s.Path), s.Why())
	case s.Allowed:
		return fmt.Sprintf("%s (allowed; %s)", shown(s.Path), s.NotYours)
	}
	return shown(s.Path)
}
