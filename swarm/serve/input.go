package serve

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What a request may carry, checked before the Backend sees it. The Backend checks names by
// swarm's own rules again; these keep out what is no name or no line at all (a flag's dash
// first, a newline, control characters, a megabyte).

// nameRule is a worker's name (NAME, NAME@HOST): letters, digits, "_", "-", "." and one "@",
// never a dash first (it would be a flag of the command run).
var nameRule = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}(@[A-Za-z0-9][A-Za-z0-9_.-]{0,63})?$`)

func checkName(name string) error {
	if !nameRule.MatchString(name) {
		return Errorf(http.StatusBadRequest, "%q is no worker's name (NAME or NAME@HOST)", clip(name, 80))
	}
	return nil
}

// Bounds of what a request's words may be.
const (
	maxLine    = 4096 // a line sent to a worker
	maxMessage = 1024 // an answer's message
	maxWord    = 200  // a query parameter
	maxRepeats = 32   // a repeated query parameter
)

// checkLine checks a line to send: one line, printable, bounded; empty is refused.
func checkLine(what, s string, limit int, empty bool) error {
	switch {
	case s == "" && !empty:
		return Errorf(http.StatusBadRequest, "%s is empty", what)
	case len(s) > limit:
		return Errorf(http.StatusBadRequest, "%s is longer than %d bytes", what, limit)
	case !utf8.ValidString(s):
		return Errorf(http.StatusBadRequest, "%s is not UTF-8", what)
	}
	for _, r := range s {
		if r == '\n' || r == '\r' {
			return Errorf(http.StatusBadRequest, "%s must be one line", what)
		}
		if r != '\t' && unicode.IsControl(r) {
			return Errorf(http.StatusBadRequest, "%s holds a control character", what)
		}
	}
	return nil
}

// checkWord checks a query parameter's value: a bounded line.
func checkWord(what, s string) error { return checkLine(what, s, maxWord, true) }

// eventsQueryOf reads GET /api/v1/events's parameters.
func eventsQueryOf(v url.Values) (EventsQuery, error) {
	q := EventsQuery{Since: v.Get("since"), Workers: v["worker"], Kinds: v["kind"]}
	for _, a := range v["after"] {
		for _, p := range strings.Split(a, ",") {
			if p = strings.TrimSpace(p); p != "" {
				q.After = append(q.After, p)
			}
		}
	}
	if err := checkWord("since", q.Since); err != nil {
		return q, err
	}
	for what, list := range map[string][]string{"after": q.After, "worker": q.Workers, "kind": q.Kinds} {
		if len(list) > maxRepeats {
			return q, Errorf(http.StatusBadRequest, "more than %d %s", maxRepeats, what)
		}
		for _, s := range list {
			if err := checkLine(what, s, maxWord, false); err != nil {
				return q, err
			}
		}
	}
	return q, nil
}

// oneLine is an error's text as one bounded line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimPrefix(s, "swarm: error: ")
	return clip(s, 500)
}

// clip bounds s to n bytes, on a rune's start.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
