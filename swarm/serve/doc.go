// Package serve is the HTTP server behind `swarm serve`: the routes of the API (/api/v1/...),
// the login and its token, the checks every request passes (the token, the same-origin rule
// for a browser's actions, read-only, bounded and validated bodies, failed logins limited per
// address) and the security headers of every response.
//
// What the routes read and do is the Backend's: the server decodes and checks a request,
// calls the Backend and writes what it returns as JSON. The Backend's values are the command
// line's own JSON types, so the API and `--format json` cannot say things differently. The
// event stream and the page are other handlers, mounted as given (Config.Stream, Config.Web).
//
// The decisions (is this request authenticated, is it same-origin, is this address locked
// out, is this body valid) are pure functions, tested one rule at a time; the token file, the
// lock of the state directory and the listener are the effects at the edge.
package serve
