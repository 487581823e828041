// Package egress is the network of a sandbox whose agent may reach only some hosts
// (--sandbox-net allow=HOST[:PORT],...): the allowlist, the proxy outside the sandbox that
// enforces it, and the relay inside that leads to the proxy.
//
// The sandbox has a network namespace of its own with loopback alone, so the agent cannot
// open a connection to anything but itself. Its HTTPS_PROXY and HTTP_PROXY name a port on
// its loopback where Relay listens; Relay carries each connection through a Unix socket,
// bound into the sandbox, to the Proxy outside, in swarm's process. The Proxy takes CONNECT
// (the tunnels HTTPS goes through) and absolute-form http:// requests, forwards those whose
// host and port the Allowlist allows, and answers every other with 403 Forbidden and one line
// saying the host is not in the sandbox's allowlist. Each refusal is reported (Proxy.Refused)
// and appended to a log of JSON lines, bounded at LogMax, that ReadRefusals reads back for
// the status pages. A proxy that dies leaves the relay without its socket: Relay returns
// ErrProxyGone and the agent's iteration ends as a failure, never with a network of its own.
//
// The rules the proxy keeps, since everything it hears comes from the agent:
//
//   - The host checked is the host dialled: a target is read into the allowlist's canonical
//     form (lower case, no trailing dot, one spelling per IP address) and that form is
//     connected to. Every absolute-form request is checked on its own host, kept-alive or not,
//     and redirects are handed to the agent, never followed.
//   - Everything is bounded: request headers (MaxHeaderBytes), the wait for them, the dial
//     (DialTimeout), the connections open at once (MaxConns), the refusal log. Nothing bounds
//     a tunnel or a response body: a model's answer streams for as long as it lasts, flushed
//     as it arrives, never gathered whole.
//   - Hop-by-hop headers are dropped and nothing about the agent is added; bodies pass as
//     they are encoded; a destination's redirect is the agent's to follow through the proxy.
//   - A tunnel passes on each direction's end (a half-close), so a client that sends and
//     shuts its side still reads the whole answer.
//
// At spawn, ParseAllow reads the user's entries (DefaultAllow gives a known agent's model
// APIs when there are none) and Reachable refuses an allowlist none of whose hosts resolves.
//
// The package stands on the standard library alone, so the sandbox's launcher can run it
// without the rest of swarm; the layering test in cmd/swarm checks that.
package egress
