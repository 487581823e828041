package config

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Whose a file is, and who else can write to it or to a directory above it, is what decides
// whether its settings apply unasked.
func TestDistrust(t *testing.T) {
	me := reader{uid: 1000, ownGroup: 1000}
	file := func(uid, gid uint32, mode os.FileMode) pathFacts {
		return pathFacts{path: "/p/swarm.toml", uid: uid, gid: gid, mode: mode}
	}
	dir := func(path string, uid uint32, mode os.FileMode) pathFacts {
		return pathFacts{path: path, dir: true, uid: uid, gid: 0, mode: mode}
	}
	home := dir("/p", 1000, 0o755)
	root := dir("/", 0, 0o755)
	cases := []struct {
		name  string
		chain []pathFacts
		want  string
	}{
		{"yours", []pathFacts{file(1000, 1000, 0o644), home, root}, ""},
		{"root's", []pathFacts{file(0, 0, 0o644), home, root}, ""},
		{"another user's", []pathFacts{file(1001, 1001, 0o644), home, root}, "it belongs to bob, not you"},
		{"writable by all", []pathFacts{file(1000, 1000, 0o666), home, root}, "others can write to it (-rw-rw-rw-)"},
		{"writable by your own group", []pathFacts{file(1000, 1000, 0o664), home, root}, ""},
		{"writable by a shared group", []pathFacts{file(1000, 100, 0o664), home, root}, "others can write to it (-rw-rw-r--)"},
		{"in a directory all can write to", []pathFacts{file(1000, 1000, 0o644), dir("/p", 1000, 0o777), root},
			"others can write to its directory /p (drwxrwxrwx)"},
		{"in a directory above that all can write to", []pathFacts{file(1000, 1000, 0o644), home, dir("/", 0, 0o777)},
			"others can write to its directory / (drwxrwxrwx)"},
		{"in a sticky directory all can write to", []pathFacts{file(1000, 1000, 0o644), dir("/tmp", 0, 0o777|os.ModeSticky), root}, ""},
		{"another's, in a sticky directory", []pathFacts{file(1001, 1001, 0o644), dir("/tmp", 0, 0o777|os.ModeSticky), root},
			"it belongs to bob, not you"},
		{"in another user's directory", []pathFacts{file(1000, 1000, 0o644), dir("/p", 1001, 0o755), root},
			"its directory /p belongs to bob, not you"},
		{"a name a terminal would act on", []pathFacts{file(1000, 1000, 0o644), dir("/p\x1b]2;x\a", 1000, 0o777), root},
			`others can write to its directory "/p\x1b]2;x\a" (drwxrwxrwx)`},
	}
	bob := func(uid uint32) string { return map[uint32]string{1001: "bob"}[uid] }
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := distrust(me, c.chain, bob); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
	if got := distrust(reader{uid: 1000, ownGroup: -1}, []pathFacts{file(1000, 1000, 0o664), root}, bob); got == "" {
		t.Error("a user with no group of their own shares the group that can write to it")
	}
}

// A file others can write to is ignored, and said so, until its content is allowed; changed, it
// is ignored again.
func TestLoadIgnoresFileNotYours(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	project := t.TempDir()
	path := filepath.Join(project, ProjectConfigName)
	write(t, path, "[loop]\nstagnation_limit = 7\n")
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	stagnation := func() (int, Source) {
		t.Helper()
		cfg := Load(project)
		lf, err := cfg.Loop()
		if err != nil {
			t.Fatal(err)
		}
		srcs := cfg.Sources()
		if len(srcs) != 1 {
			t.Fatalf("sources: %+v", srcs)
		}
		if lf.StagnationLimit == nil {
			return 0, srcs[0]
		}
		return *lf.StagnationLimit, srcs[0]
	}
	n, src := stagnation()
	if n != 0 || !src.Ignored || src.NotYours != "others can write to it (-rw-rw-rw-)" {
		t.Fatalf("writable by all: %d %+v", n, src)
	}
	if w := src.Warning(); w != fmt.Sprintf("ignored %s: others can write to it (-rw-rw-rw-); to apply its settings, read it, then run 'swarm allow %s'", src.Path, src.Path) {
		t.Errorf("warning: %s", w)
	}
	if _, err := Allow(path, time.Now()); err != nil {
		t.Fatal(err)
	}
	if n, src := stagnation(); n != 7 || src.Ignored || !src.Allowed {
		t.Errorf("allowed: %d %+v", n, src)
	}
	write(t, path, "[loop]\nstagnation_limit = 8\n")
	if n, src := stagnation(); n != 0 || !src.Ignored || !src.Changed || src.Why() != "others can write to it (-rw-rw-rw-), and it changed since you allowed it" {
		t.Errorf("changed since: %d %+v", n, src)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if n, src := stagnation(); n != 8 || src.Ignored || src.Allowed || src.NotYours != "" {
		t.Errorf("yours alone: %d %+v", n, src)
	}
	if err := os.Chmod(project, 0o777); err != nil {
		t.Fatal(err)
	}
	if n, src := stagnation(); n != 0 || src.NotYours != fmt.Sprintf("others can write to its directory %s (drwxrwxrwx)", project) {
		t.Errorf("in a directory all can write to: %d %+v", n, src)
	}
	if os.Geteuid() != 0 {
		return // only root can give a file away
	}
	if err := os.Chmod(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 54321, 54321); err != nil {
		t.Fatal(err)
	}
	if n, src := stagnation(); n != 0 || src.NotYours != "it belongs to uid 54321, not you" {
		t.Errorf("another user's: %d %+v", n, src)
	}
}

// A file that is ignored is never decoded for its settings: its mistakes stop nothing.
func TestIgnoredFileMistakesStopNothing(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	project := t.TempDir()
	path := filepath.Join(project, ProjectConfigName)
	write(t, path, "[regent\ntest_command = 'x'\n")
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	cfg := Load(project)
	if _, err := cfg.Supervision(); err != nil {
		t.Errorf("an ignored file's mistake: %v", err)
	}
	if _, err := cfg.Loop(); err != nil {
		t.Errorf("an ignored file's mistake: %v", err)
	}
}

// An ignored file that names a command is found, for those that must not go on without it.
func TestIgnoredNaming(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	project := t.TempDir()
	path := filepath.Join(project, ProjectConfigName)
	write(t, path, "[regent]\ntest_command = \"make test\"\n")
	if _, ok := Load(project).IgnoredNaming("[regent] test_command"); ok {
		t.Error("a file of the user's own is not ignored")
	}
	if err := os.Chmod(path, 0o666); err != nil {
		t.Fatal(err)
	}
	if src, ok := Load(project).IgnoredNaming("[regent] test_command"); !ok || !src.Ignored {
		t.Errorf("ignored: %+v %v", src, ok)
	}
	if _, ok := Load(project).IgnoredNaming("[spawn] command"); ok {
		t.Error("it names no spawn command")
	}
}

// A file too large to be a configuration is refused rather than read whole.
func TestLoadBoundsTheFile(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	project := t.TempDir()
	big := make([]byte, maxFileSize+10)
	for i := range big {
		big[i] = '#'
	}
	write(t, filepath.Join(project, ProjectConfigName), string(big))
	if _, err := Load(project).Loop(); err == nil {
		t.Error("a file over the bound is read")
	}
}
