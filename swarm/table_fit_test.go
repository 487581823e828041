package swarm

import (
	"reflect"
	"strings"
	"testing"
)

// A table of two workers as ls draws it, before it is fitted.
func lsColumns() []tableColumn {
	return []tableColumn{
		{"NAME", []string{"builder", "a-long-worker-name"}},
		{"STATUS", []string{"blocked (dialog: trust-folder)", "done"}},
		{"WHERE", []string{"swarm:builder", "swarm:a-long-worker-name"}},
		{"UPTIME", []string{"2h 5m", "-"}},
		{"WORKTREE", []string{"/home/dev/src/app/.swarm/worktrees/builder", "-"}},
		{"TAGS", []string{"night,fix", "-"}},
		{"LAND", []string{"-", "landed abc1234"}},
	}
}

func titlesOf(cols []tableColumn) string {
	var t []string
	for _, c := range cols {
		t = append(t, c.title)
	}
	return strings.Join(t, " ")
}

// Off a terminal the table is whole, paths and all.
func TestTableOffATerminalIsWhole(t *testing.T) {
	got := tableFit{home: "/home/dev"}.fitted(lsColumns())
	if !reflect.DeepEqual(got, lsColumns()) {
		t.Errorf("fitted off a terminal: %+v", got)
	}
}

// On a terminal wide enough, only the paths change: from ~.
func TestTableOnAWideTerminalSaysPathsFromHome(t *testing.T) {
	got := tableFit{width: 200, home: "/home/dev"}.fitted(lsColumns())
	if titlesOf(got) != "NAME STATUS WHERE UPTIME WORKTREE TAGS LAND" || got[4].cells[0] != "~/src/app/.swarm/worktrees/builder" {
		t.Errorf("fitted at 200: %+v", got)
	}
}

// Narrower, the columns give way in their order, one step at a time; NAME and STATUS never.
func TestTableGivesWayColumnByColumn(t *testing.T) {
	whole := tableWidth(tableFit{width: 1000, home: "/home/dev"}.fitted(lsColumns()))
	for _, c := range []struct {
		width  int
		titles string
		path   string // the worktree's cell, when the column is left
	}{
		{whole, "NAME STATUS WHERE UPTIME WORKTREE TAGS LAND", "~/src/app/.swarm/worktrees/builder"},
		{whole - 1, "NAME STATUS WHERE UPTIME WORKTREE LAND", "~/src/app/.swarm/worktrees/builder"},
		{whole - 12, "NAME STATUS WHERE WORKTREE LAND", "~/src/app/.swarm/worktrees/builder"},
		{whole - 20, "NAME STATUS WHERE WORKTREE LAND", "~/src/app/…warm/worktrees/builder"},
		{whole - 30, "NAME STATUS WHERE WORKTREE LAND", "~/src/a…rktrees/builder"},
		// Without WHERE, the path has room again.
		{whole - 40, "NAME STATUS WORKTREE LAND", "~/src/app/.swarm/worktrees/builder"},
		{whole - 55, "NAME STATUS WORKTREE LAND", "~/src/a…orktrees/builder"},
		{whole - 70, "NAME STATUS LAND", ""},
		{66, "NAME STATUS LAND", ""},
		{60, "NAME STATUS", ""},
		{10, "NAME STATUS", ""},
	} {
		got := tableFit{width: c.width, home: "/home/dev"}.fitted(lsColumns())
		if titlesOf(got) != c.titles {
			t.Errorf("at %d columns: %s, want %s", c.width, titlesOf(got), c.titles)
			continue
		}
		if i := columnIndex(got, "WORKTREE"); i >= 0 && got[i].cells[0] != c.path {
			t.Errorf("at %d columns the worktree reads %q, want %q", c.width, got[i].cells[0], c.path)
		}
		if c.width >= 50 && tableWidth(got) > c.width {
			t.Errorf("at %d columns the table is %d wide", c.width, tableWidth(got))
		}
		if got[0].cells[1] != "a-long-worker-name" || got[1].cells[0] != "blocked (dialog: trust-folder)" {
			t.Errorf("at %d columns a name or a state was cut: %+v", c.width, got[:2])
		}
	}
}

func TestFromHome(t *testing.T) {
	for _, c := range []struct{ path, home, want string }{
		{"/home/dev/src", "/home/dev", "~/src"},
		{"/home/dev", "/home/dev", "~"},
		{"/home/developer/src", "/home/dev", "/home/developer/src"},
		{"/srv/x", "/home/dev", "/srv/x"},
		{"/srv/x", "", "/srv/x"},
		{"/srv/x", "/", "/srv/x"},
	} {
		if got := fromHome(c.path, c.home); got != c.want {
			t.Errorf("fromHome(%q, %q) = %q, want %q", c.path, c.home, got, c.want)
		}
	}
}

func TestElideMiddle(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"~/src/app/.swarm/worktrees/builder", 100, "~/src/app/.swarm/worktrees/builder"},
		{"~/src/app/.swarm/worktrees/builder", 20, "~/src/…trees/builder"},
		{"ééééé", 4, "é…éé"},
	} {
		if got := elideMiddle(c.s, c.n); got != c.want {
			t.Errorf("elideMiddle(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
