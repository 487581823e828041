package swarm

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// A command line that names a worker on another host (NAME@HOST, or --host HOST for a
// command over every worker) is run by that host's swarm: the words are the same, without the
// host, and what it prints and its exit code come back as they are. The commands that start
// workers (spawn, agent) and those that look at the whole fleet (ls, dashboard) take --host
// as a flag of their own and are not routed here.

// routeMode is how a command names its workers.
type routeMode int

const (
	routeFirst routeMode = iota + 1 // the first positional word is the worker
	routeAll                        // every positional word is a worker
	routeNone                       // no worker named; only --host sends it
)

// routed are the commands a host runs for a remote worker.
var routed = map[string]routeMode{
	"status": routeFirst, "attach": routeFirst, "eof": routeFirst, "logs": routeFirst,
	"respawn": routeFirst, "send": routeFirst, "answer": routeFirst,
	"heartbeat": routeFirst, "heartbeat stop": routeFirst, "heartbeat ls": routeNone,
	"ralph logs": routeFirst, "ralph pause": routeFirst, "ralph resume": routeFirst,
	"ralph run": routeFirst, "ralph status": routeFirst, "ralph stop": routeFirst,
	"ralph summary": routeFirst, "ralph ls": routeNone, "ralph clean": routeAll,
	"clean": routeAll, "interrupt": routeAll, "kill": routeAll, "peek": routeAll,
	"wait": routeAll, "land": routeAll, "regent status": routeNone, "regent logs": routeNone,
	"regent restart": routeNone, "inbox": routeNone, "inbox list": routeNone,
	"inbox add": routeNone, "inbox remove": routeNone, "inbox clear": routeNone,
	"inbox release": routeNone, "query": routeNone,
}

// remoteLine is a command line to run on a host.
type remoteLine struct {
	host string
	// path is the command's words ("ralph", "status"); args its flags and positional words,
	// the host taken out.
	path []string
	args []string
	// stateDir and socket are swarm's own flags as given here (they name this machine's
	// state, and are not sent).
	global []string
	// names are the workers named on the host.
	names []string
}

// routeOf finds the host a command line is for; ok is false for a local command line.
func routeOf(app *cli.App, args []string) (line remoteLine, ok bool, err error) {
	args, flagHost := takeHostFlag(args)
	args = reorderArgs(app, args)
	global, _, i := leadingFlags(app, args, 1)
	cmd, n := commandPath(app.Commands, args[i:])
	if cmd == nil {
		return line, false, nil
	}
	path := args[i : i+n]
	mode, known := routed[strings.Join(path, " ")]
	if !known {
		return line, false, nil
	}
	flags, positional := splitFlags(app.Flags, cmd, args[i+n:])
	if wantsHelp(flags) {
		return line, false, nil
	}
	positional, names, nameHost, err := takeNameHosts(positional, mode)
	if err != nil {
		return line, false, err
	}
	host, err := oneHost(flagHost, nameHost)
	if err != nil || host == "" {
		return line, false, err
	}
	line = remoteLine{host: host, path: path, global: global[1:], names: names}
	line.args = append(append([]string{}, flags...), positional...)
	return line, true, nil
}

// takeHostFlag takes --host HOST (or --host=HOST) out of a command line, up to its "--".
func takeHostFlag(flags []string) (rest []string, host string) {
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		switch {
		case f == "--":
			return append(rest, flags[i:]...), host
		case f == "--host" && i+1 < len(flags):
			host = flags[i+1]
			i++
		case strings.HasPrefix(f, "--host="):
			host = strings.TrimPrefix(f, "--host=")
		default:
			rest = append(rest, f)
		}
	}
	return rest, host
}

// takeNameHosts takes the @HOST off the worker names of a command line, and says which host
// they name; names on two hosts, or local and remote ones together, are refused.
func takeNameHosts(positional []string, mode routeMode) (rest, names []string, host string, err error) {
	rest = append([]string{}, positional...)
	start := 0
	if len(rest) > 0 && rest[0] == "--" {
		start = 1
	}
	end := len(rest)
	switch mode {
	case routeFirst:
		end = min(start+1, end)
	case routeNone:
		end = start
	}
	local := false
	for i := start; i < end; i++ {
		name, h, remote := strings.Cut(rest[i], "@")
		if !remote {
			local = true
			continue
		}
		if h == "" || name == "" {
			return nil, nil, "", fail("'%s' is no worker: NAME@HOST names worker NAME on host HOST", rest[i])
		}
		if host != "" && h != host {
			return nil, nil, "", fail("workers on two hosts (%s and %s) in one command: give each host its own", host, h)
		}
		host, rest[i] = h, name
		names = append(names, name)
	}
	if host != "" && local {
		return nil, nil, "", fail("workers here and on host %s in one command: give each its own", host)
	}
	return rest, names, host, nil
}

// oneHost is the host a command line names, by --host or by its workers' names.
func oneHost(byFlag, byName string) (string, error) {
	if byFlag != "" && byName != "" && byFlag != byName {
		return "", fail("--host %s and workers on host %s: give one host", byFlag, byName)
	}
	if byFlag != "" {
		return byFlag, nil
	}
	return byName, nil
}
