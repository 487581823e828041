package remote

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// These tests speak to a master of their own on a socket, one message at a time, for what a
// real master does not do on demand: speak another version, refuse, or drop the session.

// fakeMaster listens on a socket of the test and serves one connection with serve.
func fakeMaster(t *testing.T, serve func(t *testing.T, m *muxClient)) *Conn {
	c, _ := fakeMasterDone(t, serve)
	return c
}

// fakeMasterDone is fakeMaster, and a channel closed once the connection is served and
// closed.
func fakeMasterDone(t *testing.T, serve func(t *testing.T, m *muxClient)) (*Conn, <-chan struct{}) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "master")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	t.Cleanup(func() { l.Close(); <-served })
	go func() {
		defer close(served)
		conn, err := l.AcceptUnix()
		if err != nil {
			return
		}
		defer conn.Close()
		serve(t, &muxClient{conn: conn})
	}()
	return &Conn{Host: Host{Name: "h1", Address: "box"}, end: Endpoint{Dest: "box"}, control: path}, served
}

// greet reads the client's hello and answers with version.
func greet(t *testing.T, m *muxClient, version uint32) {
	r, err := m.receive()
	if err != nil {
		t.Errorf("no hello: %v", err)
		return
	}
	if kind, v := r.u32(), r.u32(); kind != muxHello || v != muxVersion {
		t.Errorf("hello 0x%x version %d, want 0x%x version %d", kind, v, muxHello, muxVersion)
	}
	var p muxPacket
	p.u32(muxHello)
	p.u32(version)
	p.str("info") // an extension the client does not know
	p.str("")
	_ = m.send(p)
}

// sessionRequest is what a client asked for in MUX_C_NEW_SESSION.
type sessionRequest struct {
	request                         uint32
	tty, x11, agent, subsystem, esc uint32
	term, command                   string
	env                             []string
	files                           [3]*os.File
}

// readSession reads a session request and the three files that follow it; it runs beside
// the test, so a failure is an error that closes the connection (no file is then set).
func readSession(t *testing.T, m *muxClient) sessionRequest {
	var q sessionRequest
	r, err := m.receive()
	if err != nil {
		t.Errorf("no session request: %v", err)
		return q
	}
	if kind := r.u32(); kind != muxNewSession {
		t.Errorf("message 0x%x, want a new session", kind)
		return q
	}
	q.request = r.u32()
	_ = r.str()
	q.tty, q.x11, q.agent, q.subsystem, q.esc = r.u32(), r.u32(), r.u32(), r.u32(), r.u32()
	q.term, q.command = r.str(), r.str()
	for len(r.b) > 0 && r.err == nil {
		q.env = append(q.env, r.str())
	}
	if r.err != nil {
		t.Errorf("malformed session request: %v", r.err)
		return q
	}
	for i := range q.files {
		if q.files[i] = receiveFile(t, m.conn); q.files[i] == nil {
			return q
		}
	}
	return q
}

func receiveFile(t *testing.T, conn *net.UnixConn) *os.File {
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
	if err != nil {
		t.Errorf("no file: %v", err)
		return nil
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		t.Errorf("no file in the message: %v", err)
		return nil
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		t.Errorf("not one file: %v %v", fds, err)
		return nil
	}
	return os.NewFile(uintptr(fds[0]), "passed")
}

// closeAll closes the files a session was given.
func (q sessionRequest) closeAll() {
	for _, f := range q.files {
		if f != nil {
			f.Close()
		}
	}
}

func reply(m *muxClient, fields ...any) {
	var p muxPacket
	for _, f := range fields {
		switch v := f.(type) {
		case int:
			p.u32(uint32(v))
		case string:
			p.str(v)
		}
	}
	_ = m.send(p)
}

func TestMuxRefusesAnotherProtocolVersion(t *testing.T) {
	c := fakeMaster(t, func(t *testing.T, m *muxClient) { greet(t, m, 3) })
	_, err := c.runMux(context.Background(), "true", Streams{Stdout: io.Discard, Stderr: io.Discard})
	if !errors.Is(err, errNoMuxSession) || !strings.Contains(err.Error(), "version 3") {
		t.Fatalf("err = %v, want no session for version 3", err)
	}
}

func TestMuxRefusalLeavesTheStreamsWhole(t *testing.T) {
	for _, answer := range []int{muxPermissionDenied, muxFailure} {
		c, served := fakeMasterDone(t, func(t *testing.T, m *muxClient) {
			greet(t, m, muxVersion)
			q := readSession(t, m)
			q.closeAll()
			reply(m, answer, int(q.request), "Session open refused by peer")
		})
		stdin := strings.NewReader("for the ssh client")
		before := openFiles(t)
		_, err := c.runMux(context.Background(), "cat", Streams{Stdin: stdin, Stdout: io.Discard, Stderr: io.Discard})
		if !errors.Is(err, errNoMuxSession) || !strings.Contains(err.Error(), "refused by peer") {
			t.Fatalf("answer 0x%x: err = %v, want no session, refused by peer", answer, err)
		}
		if stdin.Len() != len("for the ssh client") {
			t.Fatalf("answer 0x%x: %d bytes of stdin left, want all of it", answer, stdin.Len())
		}
		<-served
		if after := openFiles(t); after > before {
			t.Fatalf("answer 0x%x: %d files open after, %d before", answer, after, before)
		}
	}
}

// TestMuxSession is one session as the master runs it: the request as ssh -T makes it, the
// streams through the files passed, the exit status.
func TestMuxSession(t *testing.T) {
	t.Setenv("SWARM_MUX_TEST_SENT", "sent")
	got := make(chan sessionRequest, 1)
	c, served := fakeMasterDone(t, func(t *testing.T, m *muxClient) {
		greet(t, m, muxVersion)
		q := readSession(t, m)
		if q.files[2] == nil {
			return
		}
		reply(m, muxSessionOpened, int(q.request), 5)
		in, _ := io.ReadAll(q.files[0])
		_, _ = q.files[1].WriteString("out:" + string(in))
		_, _ = q.files[2].WriteString("err\n")
		reply(m, muxExitMessage, 5, 7)
		q.closeAll()
		got <- q
	})
	var out, errs bytes.Buffer
	before := openFiles(t)
	code, err := c.runMux(context.Background(), "exec swarm ls", Streams{Stdin: strings.NewReader("in"), Stdout: &out, Stderr: &errs})
	if err != nil || code != 7 {
		t.Fatalf("code %d, err %v; want 7, nil", code, err)
	}
	if out.String() != "out:in" || errs.String() != "err\n" {
		t.Fatalf("stdout %q stderr %q", out.String(), errs.String())
	}
	q := <-got
	<-served
	if after := openFiles(t); after > before {
		t.Fatalf("%d files open after, %d before", after, before)
	}
	if q.tty != 0 || q.subsystem != 0 || q.esc != '~' || q.command != "exec swarm ls" {
		t.Fatalf("request %+v", q)
	}
	if !slices.Contains(q.env, "SWARM_MUX_TEST_SENT=sent") {
		t.Fatalf("environment %v lacks SWARM_MUX_TEST_SENT", q.env)
	}
}

// TestMuxSessionWithoutExitStatus is a session whose master closes without an exit status,
// or speaks out of turn: ssh's status 255, read as ssh's failure.
func TestMuxSessionWithoutExitStatus(t *testing.T) {
	for _, c := range []struct {
		then   []any
		detail string
	}{
		{nil, "ssh exited with status 255"},
		{[]any{muxExitMessage, 2, 0}, "the master connection sent message 0x80000004 on session 2, not 1"},
		{[]any{muxFailure, 1, "no"}, "the master connection sent the unexpected message 0x80000003"},
	} {
		conn := fakeMaster(t, func(t *testing.T, m *muxClient) {
			greet(t, m, muxVersion)
			q := readSession(t, m)
			reply(m, muxSessionOpened, int(q.request), 1)
			if c.then != nil {
				reply(m, c.then...)
			}
			q.closeAll()
		})
		_, err := conn.runMux(context.Background(), "true", Streams{Stdout: io.Discard, Stderr: io.Discard})
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindSSH || e.Detail != c.detail {
			t.Errorf("then %v: err = %v, want ssh's failure: %s", c.then, err, c.detail)
		}
	}
}

// TestMuxSilentMaster: a socket that never says hello is given up within ConnectTimeout, as
// ssh gives it up.
func TestMuxSilentMaster(t *testing.T) {
	c := fakeMaster(t, func(t *testing.T, m *muxClient) { _, _ = io.Copy(io.Discard, m.conn) })
	c.ConnectTimeout = 100 * time.Millisecond
	_, err := c.runMux(context.Background(), "true", Streams{Stdout: io.Discard, Stderr: io.Discard})
	if !errors.Is(err, errNoMuxSession) || !strings.Contains(err.Error(), "no hello") {
		t.Fatalf("err = %v, want no session, no hello", err)
	}
}

func TestMuxNoMaster(t *testing.T) {
	c := &Conn{Host: Host{Name: "h1", Address: "box"}, control: filepath.Join(t.TempDir(), "none")}
	stdin := strings.NewReader("kept")
	_, err := c.runMux(context.Background(), "true", Streams{Stdin: stdin, Stdout: io.Discard, Stderr: io.Discard})
	if !errors.Is(err, errNoMuxSession) || stdin.Len() != 4 {
		t.Fatalf("err = %v (stdin left %d), want no session", err, stdin.Len())
	}
}

// openFiles counts this process's open files.
func openFiles(t *testing.T) int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(entries)
}
