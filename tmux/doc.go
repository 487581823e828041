// Package tmux is the only place that knows tmux syntax, and the only one that runs the tmux
// binary (the layering test in cmd/swarm holds every other package to that). Keeping tmux in
// one place is what makes its quirks fixable once: every call goes to swarm's private server
// (tmux -L <socket>), never the user's; commands are passed as argv, never a shell string,
// with arguments kept whole (literalArg); panes are addressed by pane ID and carry their
// worker's identity (@swarm_id), since IDs start again at %0 when a server restarts; and text
// is delivered through named paste buffers, so it arrives byte-exact.
//
// Client is the set of operations swarm needs, and what its users depend on, so their tests
// can put tmuxtest.Fake in its place. Exec is the real one: one tmux process per call (or per
// sequence of commands, callSeq), run through a Runner that tests replace with tmuxtest.Stub
// to check the exact argv. Control is a control-mode client (tmux -C) that captures, pastes,
// types keys and respawns without a process each: with fifty loops restarting their agents,
// tmux processes were a fifth of what the machine did. Config is what the server starts with;
// ConfigWith reads the user's own file after it and then sets again the options swarm cannot
// work without, so the user's file cannot undo them.
//
// A server can stop answering (stopped, wedged, overloaded) while its panes go on. Every call
// is bounded (CallTimeout, SWARM_TMUX_TIMEOUT), and a server that did not answer is reported
// as ErrNotAnswering, with calls to it failing at once for one timeout more, so that a command
// learns it once instead of waiting at every call. The caller decides what that means for the
// agents; this package only says what tmux said. FilterEnv keeps the caller's TMUX and a
// worker's identity out of what tmux starts. PipeOutput has tmux copy a pane's output into a
// named pipe, so a loop learns the moment its screen may have changed.
//
// tmux stands on no other package of the module: it knows panes, not workers or loops.
package tmux
