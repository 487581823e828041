package remote

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBundleWritesItsFilesAndPutsThemInTheArguments(t *testing.T) {
	root := t.TempDir()
	b := Bundle{Worker: "w1", Files: []BundleFile{{Name: "PROMPT.md", Mode: 0o644, Data: []byte("do it\n")},
		{Name: "check.sh", Mode: 0o755, Data: []byte("#!/bin/sh\n")}},
		Args: []string{"spawn", "--prompt-file", SentMark + "/PROMPT.md", "--check", "command:" + SentMark + "/check.sh -v"}}
	dir, err := b.WriteFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(root, "sent", "w1") {
		t.Fatalf("sent to %s", dir)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "PROMPT.md")); string(data) != "do it\n" {
		t.Fatalf("PROMPT.md holds %q", data)
	}
	if fi, err := os.Stat(filepath.Join(dir, "check.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("check.sh: %v %v", fi, err)
	}
	args := b.ArgsIn(dir)
	if args[2] != dir+"/PROMPT.md" || args[4] != "command:"+dir+"/check.sh -v" {
		t.Fatalf("arguments %q", args)
	}
}

func TestBundleRefusesAFileNameThatLeavesItsDirectory(t *testing.T) {
	for _, name := range []string{"../x", "a/b", "..", ""} {
		b := Bundle{Worker: "w1", Files: []BundleFile{{Name: name, Data: []byte("x")}}}
		if _, err := b.WriteFiles(t.TempDir()); err == nil {
			t.Errorf("a file named %q was written", name)
		}
	}
}

func TestInWorkspaceStaysInTheClone(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := InWorkspace(dir, "sub"); err != nil || p != filepath.Join(dir, "sub") {
		t.Fatalf("sub: %s %v", p, err)
	}
	for _, bad := range []string{"../x", "/etc", "missing"} {
		if _, err := InWorkspace(dir, bad); err == nil {
			t.Errorf("InWorkspace accepted %q", bad)
		}
	}
}
