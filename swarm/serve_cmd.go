package swarm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/swarm-dev/swarm/state"
	"github.com/swarm-dev/swarm/swarm/serve"
	"github.com/swarm-dev/swarm/swarm/serve/web"
)

// serveOptions are the flags of `swarm serve`.
type serveOptions struct {
	Listen          string
	ReadOnly        bool
	TLSCert, TLSKey string
	NewToken        bool
	// global are swarm's own flags for the commands the server runs.
	global []string
	socket string // --tmux-socket, for the server's own reads

}

func (o serveOptions) check() error {
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return usageError("--tls-cert and --tls-key go together")
	}
	if _, _, err := net.SplitHostPort(o.Listen); err != nil {
		return fail("invalid --listen '%s' (HOST:PORT, like 127.0.0.1:8717)", o.Listen)
	}
	return nil
}

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the fleet over HTTP: its API, its events and its page, behind a token",
		Description: `Serves every host's workers, their loops, screens, iterations, the night's report and the
events, and the actions (pause, resume, kill, send, answer, land), as a JSON API under
/api/v1 (its OpenAPI document at /api/v1/openapi.json), until Ctrl-C. It prints the link
that logs a browser in; scripts send the token as "Authorization: Bearer TOKEN".

The token is made on the first start and kept in $SWARM_DIR/serve/token (0600); every
request needs it, on 127.0.0.1 too (other users of the machine reach it). --new-token
makes a new one: logins with the old one end. One server runs per state directory.
It listens on 127.0.0.1:8717 unless told otherwise: to reach it from elsewhere use an SSH
tunnel, a tailnet, or TLS (swarm guide serve).

Examples:
   swarm serve
   swarm serve --read-only
   swarm serve --new-token
   swarm serve --listen 0.0.0.0:8717 --tls-cert cert.pem --tls-key key.pem
   curl -H "Authorization: Bearer $(cat ~/.swarm/serve/token)" http://127.0.0.1:8717/api/v1/workers`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Usage: "the address to listen on (HOST:PORT)", Value: serve.DefaultListen},
			&cli.BoolFlag{Name: "read-only", Usage: "refuse every action: pause, resume, kill, send, answer, land"},
			&cli.StringFlag{Name: "tls-cert", Usage: "serve HTTPS with this certificate (PEM)"},
			&cli.StringFlag{Name: "tls-key", Usage: "the certificate's key (PEM)"},
			&cli.BoolFlag{Name: "new-token", Usage: "make a new token first (logins with the old one end)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("swarm serve [--listen ADDR] [--read-only] [--tls-cert F --tls-key F] [--new-token]")
			}
			o := serveOptions{Listen: c.String("listen"), ReadOnly: c.Bool("read-only"), TLSCert: c.String("tls-cert"),
				TLSKey: c.String("tls-key"), NewToken: c.Bool("new-token")}
			if s := c.String("tmux-socket"); s != "" {
				o.global, o.socket = append(o.global, "--tmux-socket", s), s
			}
			return withEnv(c, o.check, func(e *env) error { return runServe(e, o) })
		},
	}
}

func runServe(e *env, o serveOptions) error {
	root, err := filepath.Abs(e.Dir().Root)
	if err != nil {
		return fail("%w", err)
	}
	claim, err := serve.ClaimDir(root, o.Listen)
	var running *serve.ErrRunning
	if errors.As(err, &running) {
		return fail("%v", err)
	}
	if err != nil {
		return fail("cannot hold %s: %w", serve.Dir(root), err)
	}
	defer claim.Release()
	tok, err := serveToken(root, o.NewToken)
	if err != nil {
		return fail("%w", err)
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fail("cannot listen on %s: %w", o.Listen, err)
	}
	addr := ln.Addr().String()
	_ = claim.Announce(addr)
	srv := serve.New(serveConfig(e, o, root, tok))
	if err := srv.LoadTLS(); err != nil {
		ln.Close()
		return fail("%w", err)
	}
	if w := serve.ExposedWarning(addr, srv.TLS()); w != "" {
		fmt.Fprintln(e.stderr, w)
	}
	fmt.Fprintf(e.stdout, "swarm serve: %s (%s; Ctrl-C stops it)\n", serve.LoginURL(addr, srv.TLS(), tok), servedText(o))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.Serve(ctx, ln); err != nil {
		return fail("%w", err)
	}
	return nil
}

// serveConfig is the server's configuration on the state directory root.
func serveConfig(e *env, o serveOptions, root, tok string) serve.Config {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	quiet := *e
	// What a read warns of (a host that did not answer) is the answer's; not the terminal's.
	quiet.stderr = io.Discard
	cfg := serve.Config{Listen: o.Listen, ReadOnly: o.ReadOnly, TLSCert: o.TLSCert, TLSKey: o.TLSKey, Token: tok,
		Backend: &serveBackend{e: &quiet, open: requestEnv(root, o.socket),
			cmd: swarmCommand{exe: exe, global: append([]string{"--swarm-dir", root}, o.global...)}},
		Log: log.New(io.MultiWriter(e.stderr, serveLog(root)), "swarm serve: ", 0)}
	cfg.Stream = eventStream(root, cfg.Log.Printf)
	cfg.Web = web.Handler()
	return cfg
}

// serveToken is the state directory's token: a new one with renew.
func serveToken(root string, renew bool) (string, error) {
	if renew {
		return serve.NewToken(root)
	}
	tok, _, err := serve.Token(root)
	return tok, err
}

// servedText says what the server serves.
func servedText(o serveOptions) string {
	if o.ReadOnly {
		return "the page and the API at /api/v1, read-only"
	}
	return "the page and the API at /api/v1"
}

// serveLogMax bounds the server's log (and the copy it moves to).
const serveLogMax = 1 << 20

// serveLog is the server's log in $SWARM_DIR/logs, a line per write.
func serveLog(root string) io.Writer {
	return logWriter{state.Log{Path: filepath.Join(root, "logs", "serve.log"), Max: serveLogMax, Spare: true}}
}

type logWriter struct{ l state.Log }

func (w logWriter) Write(p []byte) (int, error) {
	_ = os.MkdirAll(filepath.Dir(w.l.Path), 0o700)
	_ = w.l.Append(string(p))
	return len(p), nil
}
