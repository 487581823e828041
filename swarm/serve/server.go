package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"
)

// DefaultListen is where the server listens unless told otherwise: this machine alone.
const DefaultListen = "127.0.0.1:8717"

// Config is what a Server is made of.
type Config struct {
	Listen   string // host:port
	ReadOnly bool   // every action refused with 403
	// TLSCert and TLSKey are PEM files; both or neither.
	TLSCert, TLSKey string
	// Token is what every request must carry (the cookie or Authorization: Bearer).
	Token   string
	Backend Backend
	// Stream serves /api/v1/events/stream and Web the page (/ and /static/); nil: 404.
	Stream http.Handler
	Web    http.Handler
	// Log receives the failed logins (nil: nowhere).
	Log *log.Logger
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Server is the HTTP server of `swarm serve`.
type Server struct {
	cfg     Config
	mux     *http.ServeMux
	limiter *limiter
	routes  []route
	tls     *tls.Config // loaded by LoadTLS
}

// New makes the server of cfg; it listens once Serve is called.
func New(cfg Config) *Server {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = log.New(io.Discard, "", 0)
	}
	s := &Server{cfg: cfg, limiter: newLimiter(loginTries, loginWindow)}
	s.mux = s.newMux()
	return s
}

// TLS says whether the server speaks HTTPS.
func (s *Server) TLS() bool { return s.cfg.TLSCert != "" }

// LoadTLS reads the certificate and key, when the server speaks HTTPS: a command calls it
// before it says where it serves, so that a bad pair is its one error and no link is shown.
func (s *Server) LoadTLS() error {
	if !s.TLS() || s.tls != nil {
		return nil
	}
	cert, err := tls.LoadX509KeyPair(s.cfg.TLSCert, s.cfg.TLSKey)
	if err != nil {
		return fmt.Errorf("--tls-cert %s, --tls-key %s: %w", s.cfg.TLSCert, s.cfg.TLSKey, err)
	}
	s.tls = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	return nil
}

// Handler is the whole server as one handler: the headers, the checks, the routes.
func (s *Server) Handler() http.Handler { return withHeaders(s.guard(s.mux)) }

// Serve answers on ln until ctx is done, then shuts down: the requests under way (open
// streams among them, which are told by their context) get a few seconds to end.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    32 << 10,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	if s.TLS() {
		if err := s.LoadTLS(); err != nil {
			return err
		}
		srv.TLSConfig = s.tls
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	cancel() // open streams end
	shut, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	if err := srv.Shutdown(shut); err != nil {
		_ = srv.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
