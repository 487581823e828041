package git

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// A loop fingerprints its checkout after every iteration (the stagnation breaker): git's
// output for it (the diff of every changed file, the list of untracked ones) grows with what
// the agent wrote, a data file of hundreds of megabytes as well, so it is hashed as it comes
// and never held, in the Regent that does it for every loop.

// Fingerprint names the state of a checkout: its HEAD and a digest of what `git status` shows
// (changed, staged and untracked files, with a digest of each changed file's content, so that
// editing an already modified file counts as a change). ok is false outside a repository.
func Fingerprint(dir string) (fp string, ok bool) {
	if outsideRepository(dir) {
		return "", false
	}
	head := Head(dir)
	h := sha256.New()
	h.Write([]byte(head + "\x00"))
	status := &counter{w: h}
	if err := stream(dir, status, "status", "--porcelain=v1", "-z"); err != nil {
		return "", false
	}
	if status.n > 0 {
		_ = stream(dir, h, "diff", "HEAD", "--no-color", "--no-ext-diff")
		hashUntracked(h, dir)
	}
	return head + ":" + hex.EncodeToString(h.Sum(nil))[:16], true
}

// hashUntracked adds the size and modification time of every untracked file, which no diff
// shows: an agent that only writes new files is making changes all the same.
func hashUntracked(h io.Writer, dir string) {
	top, err := Run(dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return
	}
	_ = streamLines(dir, '\x00', func(name []byte) {
		if fi, err := os.Lstat(filepath.Join(top, string(name))); err == nil {
			fmt.Fprintf(h, "%s\x00%d\x00%d\x00", name, fi.Size(), fi.ModTime().UnixNano())
		}
	}, "ls-files", "--others", "--exclude-standard", "-z", "--full-name", ":/")
}

// stream runs git in dir with its output going to w as it comes; of what it says on stderr
// the end is kept, for its error.
func stream(dir string, w io.Writer, args ...string) error {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	errb := &tailBuffer{max: outputBound}
	cmd.Stdout, cmd.Stderr = w, errb
	if err := runCmd(cmd); err != nil {
		return gitError(args[0], errb.String(), err)
	}
	return nil
}

// maxEntry bounds one entry of a listing (a path): longer ones are skipped.
const maxEntry = 64 << 10

// streamLines runs git in dir and hands each entry of its output (ended by sep) to fn as it
// comes; the entry is only valid during the call.
func streamLines(dir string, sep byte, fn func([]byte), args ...string) error {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	errb := &tailBuffer{max: outputBound}
	cmd.Stderr = errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return gitError(args[0], "", err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 4096), maxEntry)
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, sep); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			fn(sc.Bytes())
		}
	}
	// An entry too long to keep ends the listing; what is left is read and dropped, so
	// that git is not held on its pipe.
	_, _ = io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return gitError(args[0], errb.String(), err)
	}
	return nil
}

// counter counts what passes through it to w.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
