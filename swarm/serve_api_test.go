package swarm

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/swarm-dev/swarm/ralph"
	"github.com/swarm-dev/swarm/ralph/config"
	"github.com/swarm-dev/swarm/state/eventlog"
	"github.com/swarm-dev/swarm/swarm/serve"
)

const apiToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// apiServer is the server on the real Backend over a test state directory: a worker w1, a
// loop lp with webhooks set, an iteration record and an event. Its commands are a script
// that says what it was given.
func apiServer(t *testing.T) *httptest.Server {
	te := newLoopEnv(t)
	te.spawn("w1", "$ make test\n<script>alert(1)</script>\n")
	ld := te.loop("lp", ralph.State{Status: ralph.StatusRunning, CurrentIteration: 1, MaxIterations: 5,
		Supervision: &ralph.SupervisionConfig{Enabled: true, Webhook: "https://hooks.example/SECRET-ONE"},
		Notify:      &config.Notify{Webhook: "https://hooks.example/SECRET-TWO"}})
	record := `{"runId":"r1","iteration":1,"agent":"claude","startedAt":"2026-05-01T00:00:00Z","endedAt":"2026-05-01T00:05:00Z","durationMs":300000,"exitCode":null,"endReason":"done","signals":[],"checks":[],"commits":[],"tokens":null,"cost":null}`
	if err := os.WriteFile(ld.IterationsJSONL(), []byte(record+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (eventlog.Log{Root: te.env.Dir().Root}).Append(eventlog.Event{Kind: "loop.paused", Worker: "lp"}); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "swarm")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"ran: $*\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	b := &serveBackend{e: te.env, cmd: swarmCommand{exe: script}}
	srv := httptest.NewServer(serve.New(serve.Config{Token: apiToken, Backend: b}).Handler())
	t.Cleanup(srv.Close)
	return srv
}

// openAPI is the document, for its schemas.
type openAPI struct {
	Paths map[string]map[string]json.RawMessage `json:"paths"`
}

// schemaOf is the schema of a route's answer with status (its own, or the error's).
func schemaOf(t *testing.T, c *jsonschema.Compiler, path, method string, status int) *jsonschema.Schema {
	t.Helper()
	ptr := "openapi.json#/components/schemas/Error"
	if status == http.StatusOK {
		esc := strings.NewReplacer("~", "~0", "/", "~1").Replace
		ptr = "openapi.json#/paths/" + esc(path) + "/" + method + "/responses/200/content/application~1json/schema"
	}
	s, err := c.Compile(ptr)
	if err != nil {
		t.Fatalf("schema %s: %v", ptr, err)
	}
	return s
}

func apiCompiler(t *testing.T) *jsonschema.Compiler {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(serve.OpenAPI))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("openapi.json", doc); err != nil {
		t.Fatal(err)
	}
	return c
}

// call makes a request with the token and returns its status and body.
func call(t *testing.T, srv *httptest.Server, method, target, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+target, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+apiToken)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

func validate(t *testing.T, s *jsonschema.Schema, what string, body []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		t.Errorf("%s: no JSON: %q", what, body)
		return
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("%s: the answer is not the document's:\n%v\n%s", what, err, body)
	}
}

// Every route of the document answers what the document says, on the real Backend; the
// document and the router have the same routes.
func TestTheAPIIsItsDocument(t *testing.T) {
	srv := apiServer(t)
	c := apiCompiler(t)
	var doc openAPI
	if err := json.Unmarshal(serve.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	var documented []string
	bodies := map[string]string{"send": `{"line":"run the tests"}`, "answer": `{"answer":"yes"}`}
	for path, ops := range doc.Paths {
		for method := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
			target := strings.ReplaceAll(path, "{name}", "w1")
			if strings.HasSuffix(path, "/loop") || strings.HasSuffix(path, "/iterations") {
				target = strings.ReplaceAll(path, "{name}", "lp")
			}
			if strings.HasSuffix(path, "/screen") {
				target += "?lines=5&colour=html"
			}
			status, body := call(t, srv, strings.ToUpper(method), target, bodies[path[strings.LastIndex(path, "/")+1:]])
			if path == "/api/v1/events/stream" {
				if status != http.StatusNotFound {
					t.Errorf("the stream, not given: %d", status)
				}
				continue
			}
			if status != http.StatusOK {
				t.Errorf("%s %s: %d %s", method, target, status, body)
				continue
			}
			validate(t, schemaOf(t, c, path, method, status), method+" "+target, body)
		}
	}
	slices.Sort(documented)
	routes := serve.New(serve.Config{Backend: &serveBackend{}}).Routes()
	if !slices.Equal(documented, routes) {
		t.Errorf("the document's routes:\n%v\nthe server's:\n%v", documented, routes)
	}
}

func TestTheAPIsAnswersInDetail(t *testing.T) {
	srv := apiServer(t)
	c := apiCompiler(t)
	status, body := call(t, srv, "GET", "/api/v1/workers/lp/loop", "")
	if status != http.StatusOK || bytes.Contains(body, []byte("SECRET")) || bytes.Count(body, []byte(`"webhook":"***"`)) != 2 {
		t.Errorf("a loop's webhooks: %d %s", status, body)
	}
	for target, want := range map[string]int{"/api/v1/workers/w1/loop": 404, "/api/v1/workers/nobody": 404,
		"/api/v1/workers/nobody/iterations": 404, "/api/v1/report?since=whenever": 400, "/api/v1/events?after=x:y:z": 400} {
		status, body := call(t, srv, "GET", target, "")
		if status != want {
			t.Errorf("%s: %d %s, want %d", target, status, body, want)
		}
		validate(t, schemaOf(t, c, "", "", status), target, body)
	}
	_, body = call(t, srv, "GET", "/api/v1/workers/w1/screen?colour=html", "")
	var s screenJSON
	if err := json.Unmarshal(body, &s); err != nil || !strings.Contains(s.HTML, "&lt;script&gt;") || strings.Contains(s.HTML, "<script>") {
		t.Errorf("a screen's HTML: %s", body)
	}
	_, body = call(t, srv, "POST", "/api/v1/workers/w1/send", `{"line":"-x --all"}`)
	if !strings.Contains(string(body), `ran: send w1 -- -x --all`) {
		t.Errorf("send: %s", body)
	}
	_, body = call(t, srv, "POST", "/api/v1/workers/w1@box/answer", `{"answer":"no","message":"not that"}`)
	if !strings.Contains(string(body), `ran: answer w1@box no --by web --message not that`) {
		t.Errorf("answer: %s", body)
	}
	_, body = call(t, srv, "GET", "/api/v1/events", "")
	if !strings.Contains(string(body), `"cursor":"3"`) || !strings.Contains(string(body), `"kind":"loop.paused"`) {
		t.Errorf("events: %s", body)
	}
	_, body = call(t, srv, "GET", "/api/v1/events?after=3", "")
	if !strings.Contains(string(body), `{"events":[],"cursor":"3"}`) {
		t.Errorf("events after 3: %s", body)
	}
}
