package config

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
)

// Trust in a configuration file. Settings that run nothing still decide a great deal: they
// turn the Regent off, the done markers off, set a budget. A file that someone else wrote, or
// that someone else can change, must not decide that for the user unbeknown to them, so it
// applies only as its content was allowed (`swarm allow`); otherwise it is ignored, and said so.
// A file is the user's alone when it and every directory above it belong to the user (or to
// root, who can change anything anyway) and no one else can write to them: not others, nor a
// group other than the user's own. A directory that others can write to but only to add files
// (the sticky bit, as /tmp) is no danger: no one but its owner can replace the file in it.

// pathFacts is what the file system says of a file or of a directory on the way to it.
type pathFacts struct {
	path string
	dir  bool
	uid  uint32
	gid  uint32
	mode os.FileMode // the permission bits and the sticky bit
}

// reader is the user a file is read for: their uid and the group that is theirs alone (the
// group named after them with its gid as their primary one, as where every user has a group
// of their own), -1 when they have none.
type reader struct {
	uid      uint32
	ownGroup int64
}

// distrust says why a file is not the user's alone, or "" when it is. chain is the file's
// facts, then its directories' from the nearest up to the root; owner names a uid.
func distrust(r reader, chain []pathFacts, owner func(uint32) string) string {
	for i, f := range chain {
		what := "it"
		if i > 0 {
			what = "its directory " + shown(f.path)
		}
		switch {
		case f.uid != r.uid && f.uid != 0:
			return fmt.Sprintf("%s belongs to %s, not you", what, owner(f.uid))
		case f.dir && f.mode&os.ModeSticky != 0:
			continue
		case f.mode&0o002 != 0, f.mode&0o020 != 0 && int64(f.gid) != r.ownGroup:
			return fmt.Sprintf("others can write to %s (%s)", what, permString(f))
		}
	}
	return ""
}

// permString is a file's mode as ls shows it: "-rw-rw-rw-", "drwxrwxrwx".
func permString(f pathFacts) string {
	m := f.mode.Perm()
	if f.dir {
		m |= os.ModeDir
	}
	return m.String()
}

// shown is a path as a message shows it: as it is, or quoted when it holds what a terminal
// would act on.
func shown(path string) string {
	for _, r := range path {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return strconv.Quote(path)
		}
	}
	return path
}

// distrustOf is distrust for the file at path whose own facts are fi (stat of the file as it
// was opened and read), its directories looked up as the path names them and as its links
// resolve.
func distrustOf(path string, fi os.FileInfo) string {
	own, ok := factsOf(path, fi)
	if !ok {
		return "its owner cannot be read"
	}
	chain := []pathFacts{own}
	seen := map[string]bool{}
	dirs := func(p string) bool {
		for d := filepath.Dir(p); !seen[d]; d = filepath.Dir(d) {
			seen[d] = true
			dfi, err := os.Stat(d)
			facts, ok := factsOf(d, dfi)
			if err != nil || !ok {
				return false
			}
			chain = append(chain, facts)
		}
		return true
	}
	abs, err := filepath.Abs(path)
	if err != nil || !dirs(abs) {
		return "its directories cannot be read"
	}
	if canon, err := filepath.EvalSymlinks(abs); err == nil && !dirs(canon) {
		return "its directories cannot be read"
	}
	return distrust(currentReader(), chain, ownerName)
}

// Distrust says why the file at path is not the user's alone ("" when it is, or when it cannot
// be read): the same reason a loop or worker started under it is told why it was ignored.
func Distrust(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return distrustOf(path, fi)
}

func factsOf(path string, fi os.FileInfo) (pathFacts, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return pathFacts{}, false
	}
	return pathFacts{path: path, dir: fi.IsDir(), uid: st.Uid, gid: st.Gid, mode: fi.Mode() & (os.ModePerm | os.ModeSticky)}, true
}

var readerOnce = sync.OnceValue(func() reader {
	r := reader{uid: uint32(os.Geteuid()), ownGroup: -1}
	gid := os.Getegid()
	g, err := user.LookupGroupId(strconv.Itoa(gid))
	if err != nil {
		return r
	}
	// A user the system's files do not list (a directory service) is named by the environment
	// they run in, which is theirs.
	name := os.Getenv("USER")
	if u, err := user.LookupId(strconv.FormatUint(uint64(r.uid), 10)); err == nil {
		name = u.Username
	}
	if name != "" && g.Name == name {
		r.ownGroup = int64(gid)
	}
	return r
})

// currentReader is the user swarm runs as.
func currentReader() reader { return readerOnce() }

// ownerName is a user's name, or "uid N" when the user has none.
func ownerName(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		return shown(u.Username)
	}
	return "uid " + id
}
