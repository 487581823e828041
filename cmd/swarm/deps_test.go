package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The packages the swarm binary links, checked in (deps.txt), so that a new dependency, or a
// package of the standard library it did not use before (net/http in a command that had
// none), is a visible change of a reviewed file and not a side effect. Internal packages of
// the standard library are left out: they come and go with Go's releases.
//
// After a deliberate change: SWARM_UPDATE_DEPS=1 go test -run TestDependencies ./cmd/swarm/

const depsFile = "deps.txt"

func TestDependenciesAreTheListedOnes(t *testing.T) {
	cmd := exec.Command("go", "list", "-tags", "urfave_cli_no_docs", "-deps", "-f",
		`{{if .Standard}}std {{end}}{{.ImportPath}}`, ".")
	// The binary as `make build` makes it, for one platform: the list is the same on any.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		std, pkg, isStd := strings.Cut(l, " ")
		if !isStd {
			pkg = std
		} else if strings.HasPrefix(pkg, "internal/") || strings.Contains(pkg, "/internal/") || strings.HasPrefix(pkg, "vendor/") {
			continue
		}
		got = append(got, pkg)
	}
	slices.Sort(got)
	body := "# The packages the swarm binary links (see deps_test.go); standard library internals left out.\n" +
		strings.Join(got, "\n") + "\n"
	if os.Getenv("SWARM_UPDATE_DEPS") == "1" {
		if err := os.WriteFile(depsFile, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(depsFile)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			want = append(want, l)
		}
	}
	for _, p := range got {
		if !slices.Contains(want, p) {
			t.Errorf("the binary now links %s, which %s does not list", p, depsFile)
		}
	}
	for _, p := range want {
		if !slices.Contains(got, p) {
			t.Errorf("%s lists %s, which the binary no longer links", depsFile, p)
		}
	}
	if t.Failed() {
		t.Log("a deliberate change: SWARM_UPDATE_DEPS=1 go test -run TestDependencies ./cmd/swarm/, and the change to deps.txt reviewed")
	}
}
