package sharedinbox

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/git"
	"github.com/swarm-dev/swarm/ralph/inbox"
	"github.com/swarm-dev/swarm/state"
)

// inboxPath is the queue in the project, as git names it.
const inboxPath = "ralph/inbox.jsonl"

// Remote is a project's shared remote as one look at it found it: its default branch, the
// records of the inbox committed there and the claims.
type Remote struct {
	Project string // the clone
	Name    string // the remote's name in the clone: origin
	Branch  string // its default branch: main
	Records []inbox.Record
	Claims  map[string]inbox.Claim // by spec id
}

// BranchRef is where the clone keeps the remote's default branch.
func (r *Remote) BranchRef() string { return git.RemoteBranchRef(r.Name, r.Branch) }

// BranchName is the remote's default branch as people name it: origin/main.
func (r *Remote) BranchName() string { return r.Name + "/" + r.Branch }

// Look fetches the remote's default branch and claims (one fetch) and reads them. A remote
// that cannot be fetched wraps ralph.ErrRemoteUnreachable; an inbox there that cannot be read
// is an error naming its line. Nothing in the checkout is touched.
func Look(project, remote string) (*Remote, error) {
	r := &Remote{Project: project, Name: remote}
	branch, err := git.RemoteDefaultBranch(project, remote)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ralph.ErrRemoteUnreachable, err)
	}
	r.Branch = branch
	if err := git.FetchShared(project, remote, branch, inbox.ClaimRefPrefix); err != nil {
		return nil, fmt.Errorf("%w: %w", ralph.ErrRemoteUnreachable, err)
	}
	data, found, err := git.ShowFile(project, r.BranchRef(), inboxPath)
	if err != nil {
		return nil, err
	}
	if found {
		if r.Records, err = inbox.Parse(data, r.BranchName()+":"+inboxPath); err != nil {
			return nil, err
		}
	}
	r.Claims, err = readClaims(project, remote)
	return r, err
}

var claimIDRe = regexp.MustCompile(`^q-[a-z0-9]{4}$`)

// readClaims reads the claims Look fetched. A ref whose message is no claim is kept as
// unreadable: it holds its spec all the same.
func readClaims(project, remote string) (map[string]inbox.Claim, error) {
	refs, err := git.FetchedRefs(project, remote)
	if err != nil {
		return nil, err
	}
	claims := map[string]inbox.Claim{}
	for _, ref := range refs {
		if !claimIDRe.MatchString(ref.Name) {
			continue
		}
		c, err := inbox.ParseClaim(ref.Name, ref.Commit, ref.Message)
		if err != nil {
			c = inbox.Claim{ID: ref.Name, Commit: ref.Commit, State: inbox.ClaimUnreadable, Error: err.Error()}
		}
		claims[ref.Name] = c
	}
	return claims, nil
}

// Sync is a FETCH's look at the remote (Look), with the remote's records merged into the
// clone's inbox: new ids are added pending, and said.
func Sync(am *ralph.AgentMode, say func(string, ...any)) (*Remote, error) {
	r, err := Look(am.Project, am.Shared.Remote)
	if err != nil {
		return nil, err
	}
	var added []inbox.Record
	err = inbox.Inbox{Root: am.Project}.Update(func(recs []inbox.Record) ([]inbox.Record, error) {
		recs, added = inbox.MergeRemote(recs, r.Records)
		return recs, nil
	})
	if err != nil {
		return nil, err
	}
	if len(added) > 0 {
		var names []string
		for _, a := range added {
			names = append(names, a.ID+" "+a.Spec)
		}
		say("FETCH: from %s: %s", r.BranchName(), strings.Join(names, ", "))
	}
	return r, nil
}

// ensureSpec makes sure the spec's file is in the clone, taking it from the remote's branch
// when it is only there; found is false when neither has it.
func (r *Remote) ensureSpec(spec string) (found bool, err error) {
	local := ralph.SpecPath(r.Project, spec)
	if _, err := os.Stat(local); err == nil {
		return true, nil
	}
	data, found, err := git.ShowFile(r.Project, r.BranchRef(), filepath.ToSlash(filepath.Join("ralph", "specs", spec)))
	if err != nil || !found {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		return false, err
	}
	if err := state.WriteFileAtomic(local, data, 0o644); err != nil {
		return false, fmt.Errorf("writing ralph/specs/%s from %s: %w", spec, r.BranchName(), err)
	}
	return true, nil
}
