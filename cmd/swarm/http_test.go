package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// servedAt is the base of the link swarm serve printed.
var servedAt = regexp.MustCompile(`https?://[^/\s]+`)

// cmdHTTP makes one request to a running swarm serve and prints what it answered; with !
// the request must not get an answer at all (the server is gone).
func cmdHTTP(ts *testscript.TestScript, neg bool, args []string) {
	req, err := httpRequest(ts, args)
	if err != nil {
		ts.Fatalf("http: %v", err)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}).Do(req)
	if neg {
		if err == nil {
			resp.Body.Close()
			ts.Fatalf("http: %s answered %d", req.URL, resp.StatusCode)
		}
		return
	}
	if err != nil {
		ts.Fatalf("http: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var b strings.Builder
	fmt.Fprintf(&b, "status %d\n", resp.StatusCode)
	keys := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(resp.Header[k], ", "))
	}
	b.WriteString("\n")
	b.Write(body)
	_, _ = io.WriteString(ts.Stdout(), b.String())
}

// httpRequest reads the command's words into a request.
func httpRequest(ts *testscript.TestScript, args []string) (*http.Request, error) {
	var bearer, cookie string
	var headers []string
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-bearer":
			bearer = args[1]
		case "-cookie":
			cookie = args[1]
		case "-H":
			headers = append(headers, args[1])
		default:
			return nil, fmt.Errorf("unknown flag %s", args[0])
		}
		args = args[2:]
	}
	if len(args) < 3 || len(args) > 4 {
		return nil, fmt.Errorf("usage: http [-bearer FILE] [-cookie FILE] [-H NAME:VALUE]... METHOD SERVED PATH [BODY]")
	}
	served, err := os.ReadFile(ts.MkAbs(args[1]))
	if err != nil {
		return nil, err
	}
	base := servedAt.FindString(string(served))
	if base == "" {
		return nil, fmt.Errorf("no link in %s: %q", args[1], served)
	}
	var body io.Reader
	if len(args) == 4 {
		body = strings.NewReader(args[3])
	}
	req, err := http.NewRequest(args[0], base+args[2], body)
	if err != nil {
		return nil, err
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(k, strings.TrimSpace(v))
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(readFile(ts, bearer)))
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: "swarm_token", Value: strings.TrimSpace(readFile(ts, cookie))})
	}
	return req, nil
}

func readFile(ts *testscript.TestScript, path string) string {
	data, err := os.ReadFile(ts.MkAbs(path))
	if err != nil {
		ts.Fatalf("http: %v", err)
	}
	return string(data)
}
