package git

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// A shared remote as agents in several clones of a project use it: its default branch, read
// without merging anything into a checkout (`git show REF:path`), and refs of swarm's own
// moved by compare-and-swap pushes (--force-with-lease).

// ErrLeaseRejected is the cause of a push the remote refused because the ref was not where
// the push's lease expected it: someone else changed it first.
var ErrLeaseRejected = errors.New("push rejected: the remote ref was changed by someone else")

// noPrompt keeps git from asking for credentials on a terminal: the agent's pushes and
// fetches run in the Regent, where nobody would answer.
var noPrompt = []string{"GIT_TERMINAL_PROMPT=0"}

// RemoteDefaultBranch is the branch the remote's HEAD names (main, say): as the clone
// recorded it (refs/remotes/REMOTE/HEAD), else as the remote says.
func RemoteDefaultBranch(repo, remote string) (string, error) {
	if ref, err := Run(repo, "symbolic-ref", "--quiet", "refs/remotes/"+remote+"/HEAD"); err == nil {
		if b, ok := strings.CutPrefix(ref, "refs/remotes/"+remote+"/"); ok && b != "" {
			return b, nil
		}
	}
	out, err := runEnv(repo, noPrompt, "ls-remote", "--symref", remote, "HEAD")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(out, "\n") {
		if ref, ok := strings.CutPrefix(line, "ref: refs/heads/"); ok {
			if b, _, ok := strings.Cut(ref, "\t"); ok {
				return b, nil
			}
		}
	}
	return "", fmt.Errorf("git ls-remote: %s has no default branch (push one first)", remote)
}

// RemoteBranchRef is where FetchShared keeps the remote's branch: its remote-tracking ref.
func RemoteBranchRef(remote, branch string) string { return "refs/remotes/" + remote + "/" + branch }

// claimCopies is where FetchShared keeps copies of the remote's claim refs.
func claimCopies(remote string) string { return "refs/swarm/remote-claims/" + remote + "/" }

// FetchShared fetches, in one go, the remote's branch (to its remote-tracking ref) and every
// ref under prefix (refs/swarm/claims/, say), whose copies it keeps under
// refs/swarm/remote-claims/REMOTE/; copies of refs gone from the remote are removed. Nothing
// is merged: the checkout and its changes are left as they are.
func FetchShared(repo, remote, branch, prefix string) error {
	_, err := runEnv(repo, noPrompt, "fetch", "--quiet", "--prune", "--no-tags", remote,
		"+refs/heads/"+branch+":"+RemoteBranchRef(remote, branch),
		"+"+prefix+"*:"+claimCopies(remote)+"*")
	return err
}

// RefMessage is one ref of the remote as FetchShared copied it: its name under the prefix,
// its commit and that commit's message.
type RefMessage struct {
	Name, Commit, Message string
}

// FetchedRefs lists the copies FetchShared made of the remote's refs under its prefix.
func FetchedRefs(repo, remote string) ([]RefMessage, error) {
	out, err := Run(repo, "for-each-ref", "--format=%00%(refname)%00%(objectname)%00%(contents)", claimCopies(remote))
	if err != nil || out == "" {
		return nil, err
	}
	parts := strings.Split(out, "\x00")
	var refs []RefMessage
	for i := 1; i+2 < len(parts); i += 3 {
		refs = append(refs, RefMessage{Name: strings.TrimPrefix(parts[i], claimCopies(remote)), Commit: parts[i+1],
			Message: strings.TrimSpace(parts[i+2])})
	}
	return refs, nil
}

// ShowFile is the content of path in the commit rev names; found is false when it has no such
// file.
func ShowFile(repo, rev, path string) (data []byte, found bool, err error) {
	blob, err := Run(repo, "rev-parse", "--verify", "--quiet", rev+":"+path)
	if err != nil {
		if _, rerr := ResolveCommit(repo, rev); rerr != nil {
			return nil, false, fmt.Errorf("git rev-parse: %s is no commit", rev)
		}
		return nil, false, nil
	}
	data, err = rawOutput(repo, nil, "cat-file", "blob", blob)
	return data, err == nil, err
}

// PushLease moves ref on remote to commit ("" deletes it) only if the remote's ref is at
// lease ("": only if the ref does not exist). A refusal because it was not wraps
// ErrLeaseRejected; any other failure (the remote away, say) is returned as it is.
func PushLease(repo, remote, commit, ref, lease string) error {
	cmd := exec.Command("git", "-C", repo, "push", "--porcelain", "--force-with-lease="+ref+":"+lease, remote, commit+":"+ref)
	cmd.Env = append(os.Environ(), noPrompt...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := runCmd(cmd)
	if err == nil {
		return nil
	}
	for _, line := range strings.Split(out.String(), "\n") {
		// --porcelain: "!<TAB>src:dst<TAB>[rejected] (stale info)" for a ref not at the lease.
		if strings.HasPrefix(line, "!\t") {
			return errors.Join(ErrLeaseRejected, fmt.Errorf("git push: %s", strings.TrimSpace(line[2:])))
		}
	}
	return gitError("push", errb.String(), err)
}

// DeleteRemoteRef deletes ref on remote, wherever it is.
func DeleteRemoteRef(repo, remote, ref string) error {
	_, err := runEnv(repo, noPrompt, "push", "--quiet", remote, ":"+ref)
	return err
}

// ForcePush moves ref on remote to commit, wherever it was.
func ForcePush(repo, remote, commit, ref string) error {
	_, err := runEnv(repo, noPrompt, "push", "--quiet", remote, "+"+commit+":"+ref)
	return err
}
