// Package config reads swarm's configuration files and hands out their tables: [regent]
// (Supervision), [loop] with [loop.hooks] and [pricing."model"] (Loop), [notify] (Notify),
// [spawn] (SpawnCommand) and [agents.NAME] (Profiles). It also says what a checker spec and a
// hook spec are (ParseCheck, ParseHook), since the files and the command line give them alike.
//
// Which files, in what order. Load(dir) reads, when they exist:
//
//  1. the user's own config.toml, $XDG_CONFIG_HOME/swarm/config.toml (~/.config/swarm/...);
//  2. the project's swarm.toml, found from dir upwards up to the repository root (the first
//     directory holding .git), so a file above the repository belongs to something else.
//
// A later file overrides an earlier one setting by setting: a key of [regent], [loop] or
// [notify], a [loop] checks list as a whole, hooks per type, prices per model, profiles and
// the spawn command as a whole. The flags given on the command line override both; that
// merge, with the defaults under it all, is the loop's (ralph.ResolveSupervision,
// ralph.ResolveLoop, ralph.ResolveNotify), since the defaults and the flags are its own.
//
// Each file is read and decoded once, whichever tables are asked for. A mistake in it (it
// is not TOML, an unknown key, a value of the wrong kind) is reported, with the file and the
// key's line, when a table of it is asked for, so the order of the messages follows the
// order in which the tables are read.
//
// Consent. A repository someone else wrote can name commands: hooks, command and script
// checkers, the test command, the notify command and webhook, the spawn command, the agents'
// commands. Cloning it must not be enough to have swarm run them, so a project's swarm.toml
// whose tables that are asked for name commands (CommandKeys) is refused (ErrNotAllowed)
// until the user allowed that file's exact content (`swarm allow`, Allow). The consent is
// a hash of the file kept in the user's own config directory (allowed.json), never in the
// project, so a changed file (a pull, a checkout) asks again. A table that runs nothing
// needs no consent, so a plain spawn is not refused over a hook it does not run. The user's
// config.toml and the flags need none: the user wrote them. A file's consent is looked up
// once, when the first table of it that runs something is asked for.
//
// Trust. Settings that run nothing still decide much (the Regent off, the done markers off, a
// budget), so a file that is not the user's alone applies only as its content was allowed: one
// that another user owns, that others can write to, or that sits in a directory others can
// write to (a sticky one such as /tmp excepted) is ignored otherwise, and Sources says so and
// why (trust.go), for the commands to warn and the loop to record. Its mistakes stop nothing:
// it is not decoded for its settings. It is read once, and its owner and mode come from the
// same open file, so what was judged is what applies.
//
// The layering: config stands below the loop (package ralph imports it, never the other
// way), on state (the allow-list's lock and atomic write), ralph/cost (prices) and
// ralph/words (how a path is quoted for the shell in a message), and the TOML decoder.
// cmd/swarm's layering test checks it, so that reading a setting never pulls in the loop.
package config
