package swarm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/swarm/remote"
)

// A worker started on a host (spawn, ralph spawn or agent with --host, or --name NAME@HOST)
// is started by the host's swarm with the same flags, in the host's clone of this repository
// (or the --cwd named there), with the files it needs here sent along: the prompt file and
// the local executables given to --check and --hook.

// spawnHost is the host a spawn is for ("" for this machine) and the worker's name without it.
func spawnHost(c *cli.Context) (host, name string, err error) {
	name, host = c.String("name"), c.String("host")
	if n, h, ok := strings.Cut(name, "@"); ok {
		if host != "" && host != h {
			return "", "", fail("--name %s and --host %s name two hosts", name, host)
		}
		name, host = n, h
	}
	if host == remote.LocalName {
		host = ""
	}
	return host, name, nil
}

// spawnOnHost starts the worker of the command line c on host. Nothing is sent before the
// host has said who it is, so a host that cannot be reached has started nothing; a
// connection lost after the bundle went is settled by asking the host (spawnLost).
func spawnOnHost(c *cli.Context, host, name string) error {
	root, conn, err := connFor(c, host)
	if err != nil {
		return err
	}
	b := remote.Bundle{Worker: name, ID: remote.NewSpawnID()}
	if err := checkName(name); err != nil {
		return err
	}
	if c.String("cwd") == "" {
		if b.Repo, b.Subdir, err = projectOf(c.String("repo"), ""); err != nil {
			return fail("a worker on host %s runs in the host's clone of this repository: %v; or give --cwd, a directory on the host", host, err)
		}
	}
	var sent []remote.SentFile
	b.Args, b.Files, sent, err = hostArgs(c, name)
	if err != nil {
		return err
	}
	data, err := json.Marshal(b)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if err := greetForSpawn(ctx, c, root, conn); err != nil {
		// Nothing went yet: a connection that failed (a master connection that was just
		// ending, a busy sshd) is tried once more before the spawn is given up.
		var re *remote.RemoteError
		if errors.As(err, &re) {
			return fail("%w (%s was not started there)", err, name)
		}
		time.Sleep(greetRetryPause)
		if err := greetForSpawn(ctx, c, root, conn); err != nil {
			return fail("%w (%s was not started there)", err, name)
		}
	}
	out, errs := escapeTo(c.App.Writer), escapeTo(c.App.ErrWriter)
	code, err := conn.Run(ctx, []string{"host", "__spawn"}, remote.Streams{Stdin: bytes.NewReader(data), Stdout: out, Stderr: errs})
	out.Flush()
	errs.Flush()
	if err != nil {
		code, err = spawnLost(c, root, conn.Host, b.ID, name, err)
		if err != nil {
			return err
		}
	}
	if code == 0 {
		recordSpawned(c, root, host, name, sent)
	}
	return exitCode(code)
}

// greetRetryPause is how long a spawn waits before it greets a host again whose connection
// failed at the first greeting.
const greetRetryPause = 500 * time.Millisecond

// greetForSpawn asks the host's swarm its version before a spawn there (`swarm --version`,
// which every swarm answers, and cheaply): the host must answer, and a version other than
// this one is told (once per change).
func greetForSpawn(ctx context.Context, c *cli.Context, root string, conn *remote.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, spawnAskLimit)
	defer cancel()
	version, err := hostVersion(ctx, conn)
	if err != nil {
		return err
	}
	if news := versionNews(remote.RegistryOf(root), conn.Host.Name, version); news != "" {
		fmt.Fprintf(c.App.ErrWriter, "swarm: warning: %s\n", news)
	}
	return nil
}

// hostVersion is the version of the host's swarm, as its --version says it.
func hostVersion(ctx context.Context, conn *remote.Conn) (string, error) {
	out, err := conn.Output(ctx, nil, "--version")
	if err != nil {
		return "", hostError(err)
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "swarm version ")
	if !ok || v == "" || strings.ContainsAny(v, " \n") {
		return "", fmt.Errorf("the swarm on %s gave no version swarm understands: %s", conn.Host.Name, hostText(string(out)))
	}
	return v, nil
}

func checkName(name string) error {
	if name == "" {
		return fail("--name is required")
	}
	return nil
}

// projectOf is the repository a host clones for the project of dir ("": the current
// directory), and where in it dir is: repoFlag, else the URL of its origin; a local path is
// made absolute.
func projectOf(repoFlag, dir string) (repo, sub string, err error) {
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return "", "", err
		}
	}
	top, err := git.TopLevel(dir)
	if err != nil {
		return "", "", fmt.Errorf("%s is not in a git repository", dir)
	}
	repo = repoFlag
	if repo == "" {
		if repo, err = git.RemoteURL(top, "origin"); err != nil {
			return "", "", fmt.Errorf("the repository %s has no remote 'origin' (give --repo URL)", top)
		}
	}
	if fi, err := os.Stat(repo); err == nil && fi.IsDir() {
		repo, _ = filepath.Abs(repo)
	}
	real, _ := filepath.EvalSymlinks(dir)
	sub, err = filepath.Rel(top, real)
	if err != nil || strings.HasPrefix(sub, "..") {
		sub = "."
	}
	return repo, sub, nil
}

// hostArgs is the command line c as the host's swarm runs it: the same command and flags,
// without the host, the files to send in their place, and which they are.
func hostArgs(c *cli.Context, name string) (args []string, files []remote.BundleFile, sent []remote.SentFile, err error) {
	args = strings.Fields(typedCommand(c))
	if len(args) > 0 && args[0] == c.App.Name {
		args = args[1:]
	}
	s := &sender{}
	for _, f := range c.Command.Flags {
		n := f.Names()[0]
		if n == "host" || n == "repo" || n == "name" || !c.IsSet(n) {
			continue
		}
		vals, err := flagWords(c, f, n, s)
		if err != nil {
			return nil, nil, nil, err
		}
		args = append(args, vals...)
	}
	args = append(args, "--name", name)
	if rest := c.Args().Slice(); len(rest) > 0 {
		args = append(append(args, "--"), rest...)
	}
	return args, s.files, s.sent, nil
}

// flagWords are the words that give flag f as it was given to c.
func flagWords(c *cli.Context, f cli.Flag, n string, s *sender) ([]string, error) {
	switch f := f.(type) {
	case *cli.BoolFlag:
		return []string{"--" + n + "=" + strconv.FormatBool(c.Bool(n))}, nil
	case *cli.GenericFlag:
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			// A value that may stand alone (--sandbox) is taken only with "=".
			return []string{"--" + n + "=" + c.Generic(n).(fmt.Stringer).String()}, nil
		}
	case *cli.IntFlag:
		return []string{"--" + n, strconv.Itoa(c.Int(n))}, nil
	case *cli.Float64Flag:
		return []string{"--" + n, strconv.FormatFloat(c.Float64(n), 'g', -1, 64)}, nil
	case *cli.StringSliceFlag:
		var out []string
		for _, v := range c.StringSlice(n) {
			v, err := s.inValue(n, v)
			if err != nil {
				return nil, err
			}
			out = append(out, "--"+n, v)
		}
		return out, nil
	}
	v := c.String(n)
	if n == "prompt-file" {
		var err error
		if v, err = s.file(v); err != nil {
			return nil, err
		}
	}
	return []string{"--" + n, v}, nil
}
