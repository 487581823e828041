package swarm

import (
	"io"
	"slices"
	"testing"
)

func TestRouteOfFindsTheHostOfACommandLine(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	cases := []struct {
		args       []string
		host       string
		path, rest []string
	}{
		{[]string{"swarm", "peek", "w1@box", "-n", "5"}, "box", []string{"peek"}, []string{"-n", "5", "--", "w1"}},
		{[]string{"swarm", "ralph", "status", "w1@box", "--format", "json"}, "box", []string{"ralph", "status"}, []string{"--format", "json", "--", "w1"}},
		{[]string{"swarm", "kill", "a@box", "b@box"}, "box", []string{"kill"}, []string{"--", "a", "b"}},
		{[]string{"swarm", "ralph", "resume", "w1@box", "--again", "--max-iterations", "9"}, "box", []string{"ralph", "resume"},
			[]string{"--again", "--max-iterations", "9", "--", "w1"}},
		{[]string{"swarm", "land", "--all", "--repo", "/src/p", "--host", "box"}, "box", []string{"land"}, []string{"--all", "--repo", "/src/p"}},
		{[]string{"swarm", "kill", "--all", "--host", "box"}, "box", []string{"kill"}, []string{"--all"}},
		{[]string{"swarm", "send", "w1@box", "mail me@home"}, "box", []string{"send"}, []string{"--", "w1", "mail me@home"}},
		{[]string{"swarm", "--swarm-dir", "/tmp/s", "status", "w1@box"}, "box", []string{"status"}, []string{"--", "w1"}},
	}
	for _, c := range cases {
		line, ok, err := routeOf(app, c.args)
		if err != nil || !ok || line.host != c.host || !slices.Equal(line.path, c.path) || !slices.Equal(line.args, c.rest) {
			t.Errorf("routeOf(%q) = %+v, %v, %v; want %s %q %q", c.args, line, ok, err, c.host, c.path, c.rest)
		}
	}
}

func TestRouteOfLeavesLocalCommandLinesAlone(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, args := range [][]string{
		{"swarm", "peek", "w1"},
		{"swarm", "send", "w1", "mail me@home"},
		{"swarm", "spawn", "--host", "box", "--name", "w1", "--", "sleep", "1"},
		{"swarm", "ls", "--host", "box"},
		{"swarm", "status", "w1@box", "--help"},
		{"swarm", "spawn", "--name", "w1", "--", "ssh", "me@box"},
	} {
		if line, ok, err := routeOf(app, args); ok || err != nil {
			t.Errorf("routeOf(%q) = %+v, %v, %v; want a local command", args, line, ok, err)
		}
	}
}

func TestRouteOfRefusesWorkersOfTwoHosts(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, args := range [][]string{
		{"swarm", "kill", "a@box", "b@gpu"},
		{"swarm", "kill", "a@box", "b"},
		{"swarm", "kill", "--host", "gpu", "a@box"},
		{"swarm", "peek", "@box"},
	} {
		if _, _, err := routeOf(app, args); err == nil {
			t.Errorf("routeOf(%q) accepted", args)
		}
	}
}
