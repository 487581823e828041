package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestNotifyTableErrorsNameFileAndKey(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	path := filepath.Join(dir, ProjectConfigName)
	for text, want := range map[string]string{
		"[notify]\ndesktop = \"yes\"\n": `[notify]: desktop: expected true or false, got "yes"`,
		"[notify]\nslack = true\n":      `[notify]: unknown key "slack" (known: desktop, tmux, webhook, command, events)`,
		"[notify]\nevents = \"done\"\n": `[notify]: events: expected an array of event names, got "done"`,
	} {
		write(t, path, text)
		_, err := Load(dir).Notify()
		if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%q: error %v; want %s: ...%s", text, err, path, want)
		}
	}
}

func TestNotifyWantsOnlyItsEvents(t *testing.T) {
	n := Notify{Tmux: true, Events: []string{"done"}}
	if !n.Wants("done") || n.Wants("failed") {
		t.Errorf("events [done]: Wants(done)=%v Wants(failed)=%v", n.Wants("done"), n.Wants("failed"))
	}
	if (Notify{Events: []string{"done"}}).Wants("done") {
		t.Error("no channel: nothing is wanted")
	}
}
