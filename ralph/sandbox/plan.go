package sandbox

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Facts are what one start of a confined agent is made of, gathered by the launcher.
type Facts struct {
	Home    string
	WorkDir string // the agent's own directory: read-write
	// InPlace says WorkDir is the user's own checkout, not a worktree of the worker's: its
	// .git stays read-only, so no branch of the user's moves.
	InPlace bool
	// Repo is the repository a clone worktree borrows its objects from: read-only.
	Repo     string
	StateDir string // swarm's state directory: hidden
	Box      string // where the agent's signals go: read-write ("": none)
	TmuxDir  string // the directory of the user's tmux sockets: hidden
	// Argv0 is the agent's executable as found on PATH, and Real the file it resolves to.
	Argv0, Real string
	// Self is swarm's own executable: the agent's hooks run it to report their events.
	Self   string
	Path   []string // the PATH entries
	Getenv func(string) string
	// Stat says whether a path exists and whether it is a directory.
	Stat func(path string) (exists, dir bool)
	// HomeEntries are the names in Home.
	HomeEntries []string
	Net         Net
	// ProxySocket is the egress proxy's socket outside, for Net allow.
	ProxySocket string
	// Cache is the worker's own directory of caches: the caches of the home directory
	// (Caches) are its subdirectories inside, read-write, so that builds and installs work
	// and are kept across starts, while the user's own caches, which builds outside read,
	// stay out of the agent's reach. "": the caches are read-only.
	Cache string
	// FirstFD is the descriptor the first copy (see AgentFiles.Copies) is passed on.
	FirstFD int
}

// Copy is a file the agent gets a copy of: the launcher opens Src on FD.
type Copy struct {
	Src string
	FD  int
}

// Inside is where things outside are found inside the sandbox.
const (
	ProxySocketInside = "/tmp/.swarm-egress.sock"
	ProxyAddrInside   = "127.0.0.1:3128"
)

// Plan is bubblewrap's arguments (before the command), and the copies they name.
type Plan struct {
	Args   []string
	Copies []Copy
}

// Command is the command bubblewrap runs: argv, after a word on descriptor fd (one digit)
// that says the sandbox is made. bubblewrap's own reports come before its mounts are done, so
// they cannot tell a sandbox that failed from an agent that did.
func Command(fd int, argv []string) []string {
	d := strconv.Itoa(fd)
	return append([]string{"/bin/sh", "-c", "printf up >&" + d + "; exec " + d + ">&-; exec \"$@\"", "sh"}, argv...)
}

// Build is the plan for f. Mounts apply in order, a later one over an earlier: the whole
// machine read-only, then a private /tmp and home, what comes back into the home, what is
// hidden again, and last what the agent may write.
func Build(f Facts) Plan {
	p := &planner{f: f}
	p.add("--die-with-parent", "--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp")
	for _, dir := range p.needed("/tmp") {
		p.add("--ro-bind", dir, dir)
	}
	p.home()
	if f.Self != "" && p.exists(f.Self) {
		p.add("--ro-bind", f.Self, f.Self)
	}
	p.hide(f.StateDir)
	p.hide(f.TmuxDir)
	if f.Repo != "" {
		p.add("--ro-bind", f.Repo, f.Repo)
	}
	if f.Box != "" {
		p.add("--bind", f.Box, f.Box)
	}
	p.add("--bind", f.WorkDir, f.WorkDir)
	gitDir := filepath.Join(f.WorkDir, ".git")
	switch found, dir := f.Stat(gitDir); {
	case f.InPlace && found:
		p.add("--ro-bind", gitDir, gitDir)
	case f.Repo != "" && found && dir:
		p.guardClone(gitDir)
	}
	p.rehide(f.WorkDir)
	p.network()
	p.environment()
	p.add("--chdir", f.WorkDir)
	return Plan{Args: p.args, Copies: p.copies}
}

type planner struct {
	f      Facts
	args   []string
	copies []Copy
}

func (p *planner) add(args ...string) { p.args = append(p.args, args...) }

func (p *planner) exists(path string) bool {
	ok, _ := p.f.Stat(path)
	return ok
}

// hide makes path empty inside: a directory becomes an empty tmpfs, a file /dev/null.
func (p *planner) hide(path string) {
	if path == "" {
		return
	}
	switch ok, dir := p.f.Stat(path); {
	case ok && dir:
		p.add("--tmpfs", path)
	case ok:
		p.add("--ro-bind", "/dev/null", path)
	}
}

// home makes the home directory private, brings back its dot-files read-only (but secrets,
// other agents' files and swarm's state), the places the agent's command needs, and its own
// agent's files read-write.
func (p *planner) home() {
	f := p.f
	if f.Home == "" || f.Home == "/" || !p.exists(f.Home) {
		return
	}
	p.add("--tmpfs", f.Home)
	own := FilesOf(f.Argv0)
	hidden := append(append([]string{}, secrets...), otherAgents(f.Argv0)...)
	for _, name := range f.HomeEntries {
		path := filepath.Join(f.Home, name)
		if !strings.HasPrefix(name, ".") || slices.Contains(hidden, name) || slices.Contains(own.Copies, name) || slices.Contains(own.Dirs, name) ||
			within(f.StateDir, path) {
			continue
		}
		p.add("--ro-bind", path, path)
	}
	for _, rel := range hidden {
		if strings.Contains(rel, "/") && p.exists(filepath.Join(f.Home, rel)) {
			p.hide(filepath.Join(f.Home, rel))
		}
	}
	p.caches()
	for _, dir := range p.needed(f.Home) {
		p.add("--ro-bind", dir, dir)
	}
	for _, rel := range own.Dirs {
		if path := filepath.Join(f.Home, rel); p.exists(path) {
			p.add("--bind", path, path)
		}
	}
	if own.Env != "" {
		if dir := f.Getenv(own.Env); filepath.IsAbs(dir) && p.exists(dir) {
			p.add("--bind", dir, dir)
		}
	}
	for _, rel := range own.Copies {
		if path := filepath.Join(f.Home, rel); p.exists(path) {
			fd := f.FirstFD + len(p.copies)
			p.copies = append(p.copies, Copy{Src: path, FD: fd})
			p.add("--perms", "0600", "--file", strconv.Itoa(fd), path)
		}
	}
}

// guardClone keeps what of a clone's git directory says which commands git runs out of the
// agent's reach: swarm runs git in the clone outside the sandbox (its checks, the test gate,
// fetching its branch back), and must not run a hook or a filter the agent wrote there. The
// directory is a mount point of its own, so it cannot be moved away and replaced; its
// configuration, hooks and commondir (which could name another configuration) are read-only.
func (p *planner) guardClone(gitDir string) {
	p.add("--bind", gitDir, gitDir)
	for _, name := range []string{"config", "hooks", "commondir", "info"} {
		if path := filepath.Join(gitDir, name); p.exists(path) {
			p.add("--ro-bind", path, path)
		}
	}
}

// rehide hides again what the read-write directory dir brought back: a worker started in the
// home directory, or above swarm's state, sees no secret and no state either.
func (p *planner) rehide(dir string) {
	f := p.f
	var again []string
	if f.Home != "" && within(dir, f.Home) {
		for _, rel := range append(append([]string{}, secrets...), otherAgents(f.Argv0)...) {
			again = append(again, filepath.Join(f.Home, rel))
		}
	}
	again = append(again, f.StateDir, f.TmuxDir)
	for _, path := range again {
		if path != "" && within(dir, path) && path != dir {
			p.hide(path)
		}
	}
	if f.Box != "" && within(dir, f.StateDir) {
		p.add("--bind", f.Box, f.Box)
	}
}

// Caches are the places in the home directory where toolchains keep what they download and
// build; each is bound from the worker's own Cache/<name> (see CacheDir).
var Caches = []string{".cache", ".npm", ".cargo/registry", ".cargo/git", "go/pkg/mod", ".gradle/caches", ".m2/repository", ".bun/install/cache"}

// CacheDir is where in cache the home's cache rel is kept.
func CacheDir(cache, rel string) string {
	return filepath.Join(cache, strings.ReplaceAll(strings.TrimPrefix(rel, "."), "/", "-"))
}

// caches binds the worker's own caches over the home's (made by the launcher beforehand): a
// cache the home has, or one whose place is in the private home; never one that would need a
// directory made inside a dot-directory bound read-only (bubblewrap could not make it).
func (p *planner) caches() {
	if p.f.Cache == "" {
		return
	}
	for _, rel := range Caches {
		home := filepath.Join(p.f.Home, rel)
		top, _, nested := strings.Cut(rel, "/")
		if nested && strings.HasPrefix(top, ".") && p.exists(filepath.Join(p.f.Home, top)) && !p.exists(home) {
			continue
		}
		p.add("--bind", CacheDir(p.f.Cache, rel), home)
	}
}

// needed is what of the private places (the home directory outside its dot-files, and /tmp)
// the agent's command needs, under private: the PATH entries there, the directory of the
// agent's executable, and the package the file it resolves to belongs to (a node_modules
// tree holds what it loads).
func (p *planner) needed(private string) []string {
	f := p.f
	var out []string
	keep := func(dir string) {
		if dir != "" && dir != private && within(private, dir) && !within(f.StateDir, dir) && !slices.Contains(out, dir) && p.exists(dir) {
			out = append(out, dir)
		}
	}
	for _, dir := range f.Path {
		if filepath.IsAbs(dir) {
			keep(filepath.Clean(dir))
		}
	}
	for _, exe := range []string{f.Argv0, f.Real} {
		if exe != "" {
			keep(packageDir(exe))
		}
	}
	return out
}

// packageDir is the directory that holds what exe needs: the node_modules tree above it when
// there is one (and its parent, where node's own modules are), else exe's own directory.
func packageDir(exe string) string {
	dir := filepath.Dir(exe)
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if filepath.Base(d) == "node_modules" {
			return filepath.Dir(d)
		}
	}
	return dir
}

// network cuts the agent off the machine's network for none and allow; allow reaches the
// proxy outside through its socket, bound in.
func (p *planner) network() {
	switch p.f.Net.Kind {
	case NetNone:
		p.add("--unshare-net")
	case NetAllow:
		p.add("--unshare-net", "--bind", p.f.ProxySocket, ProxySocketInside)
		proxy := "http://" + ProxyAddrInside
		for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"} {
			p.add("--setenv", k, proxy)
		}
		p.add("--unsetenv", "NO_PROXY", "--unsetenv", "no_proxy")
	}
}

// environment: no way to the tmux server, the DONE file in the box, and the agents that ask
// told they run in a sandbox (Claude Code runs as root only then).
func (p *planner) environment() {
	p.add("--unsetenv", "TMUX", "--unsetenv", "TMUX_PANE", "--setenv", "IS_SANDBOX", "1", "--setenv", "SWARM_SANDBOX", "bwrap")
	if p.f.Box != "" {
		p.add("--setenv", "SWARM_DONE_FILE", filepath.Join(p.f.Box, "DONE"))
	}
}

// within reports whether path is dir or below it.
func within(dir, path string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
