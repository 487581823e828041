package swarm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/ralph/words"
	"github.com/swarm-dev/swarm/swarm/remote"
)

// sender gathers the files a worker on a host needs from here.
type sender struct {
	files []remote.BundleFile
	sent  []remote.SentFile
}

// file reads the local file path to send, and returns the name it has on the host.
func (s *sender) file(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for _, f := range s.sent {
		if f.Local == abs {
			return remote.SentMark + "/" + f.Name, nil
		}
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return "", fail("cannot read %s to send it: %v", path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	name := filepath.Base(abs)
	for taken(s.sent, name) {
		name = fmt.Sprintf("%d-%s", len(s.sent), filepath.Base(abs))
	}
	s.files = append(s.files, remote.BundleFile{Name: name, Mode: uint32(fi.Mode().Perm()), Data: data})
	s.sent = append(s.sent, remote.SentFile{Local: abs, Name: name})
	return remote.SentMark + "/" + name, nil
}

func taken(sent []remote.SentFile, name string) bool {
	for _, f := range sent {
		if f.Name == name {
			return true
		}
	}
	return false
}

// inValue is a --check or --hook value with a local executable it runs sent along: a
// checker "command:./check.sh ARGS" or "./check.sh", a hook "TYPE:./hook.sh ARGS".
func (s *sender) inValue(flag, v string) (string, error) {
	prefix, cmd := "", v
	switch flag {
	case "check":
		if rest, ok := strings.CutPrefix(v, "command:"); ok {
			prefix, cmd = "command:", rest
		} else if strings.HasPrefix(v, "file:") || strings.HasPrefix(v, "marker:") || v == "exit-code" {
			return v, nil
		}
	case "hook":
		typ, rest, ok := strings.Cut(v, ":")
		if !ok {
			return v, nil
		}
		prefix, cmd = typ+":", rest
	default:
		return v, nil
	}
	word, args, _ := strings.Cut(strings.TrimLeft(cmd, " "), " ")
	if !localExecutable(word) {
		return v, nil
	}
	name, err := s.file(word)
	if err != nil {
		return "", err
	}
	if args != "" {
		name += " " + args
	}
	return prefix + name, nil
}

// localExecutable says whether word names an executable file here by its path.
func localExecutable(word string) bool {
	if !strings.Contains(word, "/") {
		return false
	}
	fi, err := os.Stat(word)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// resendFiles sends the files that went with a worker on a host again, as they are now.
func resendFiles(ctx context.Context, root string, conn *remote.Conn, worker string) (int, error) {
	s, err := remote.RegistryOf(root).LoadSent(conn.Host.Name, worker)
	if err != nil || len(s.Files) == 0 {
		return 0, err
	}
	b := remote.Bundle{Worker: worker}
	for _, f := range s.Files {
		data, err := os.ReadFile(f.Local)
		if err != nil {
			return 0, fmt.Errorf("cannot read %s to send it: %w", f.Local, err)
		}
		mode := uint32(0o600)
		if fi, err := os.Stat(f.Local); err == nil {
			mode = uint32(fi.Mode().Perm())
		}
		b.Files = append(b.Files, remote.BundleFile{Name: f.Name, Mode: mode, Data: data})
	}
	data, err := json.Marshal(b)
	if err != nil {
		return 0, err
	}
	if _, err := conn.Output(ctx, bytes.NewReader(data), "host", "__put"); err != nil {
		return 0, hostError(err)
	}
	return len(b.Files), nil
}

func hostSyncCommand() *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "send a remote worker's files again (its prompt file, checkers and hooks), as they are here now",
		ArgsUsage: "NAME@HOST",
		Description: `A loop on a host reads the host's copy of its prompt file at every iteration; after you
change it here, this sends it (and the local checkers and hooks the worker was started
with). swarm ralph resume NAME@HOST sends them too.

Examples:
   swarm host sync w1@box`,
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) != 1 || !strings.Contains(args[0], "@") {
				return usageError("swarm host sync NAME@HOST")
			}
			name, host, _ := strings.Cut(args[0], "@")
			root, conn, err := connFor(c, host)
			if err != nil {
				return err
			}
			n, err := resendFiles(context.Background(), root, conn, name)
			if err != nil {
				return fail("%w", err)
			}
			fmt.Fprintf(c.App.Writer, "Sent %s to %s@%s\n", words.Plural(n, "file"), name, host)
			return nil
		},
	}
}
