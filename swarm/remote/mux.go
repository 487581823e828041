package remote

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// A master connection answers on its control socket in OpenSSH's multiplexing protocol
// (PROTOCOL.mux in its sources): a client says hello, asks for a session with a command and
// hands over its standard input, output and error as file descriptors; the master opens a
// channel on the connection it already has, copies the streams itself and tells the exit
// status. Speaking it here spares each command the ssh client process that would otherwise
// speak it for us, whose start is most of what a short command costs.

// The messages this client sends and reads, and the protocol version it speaks.
const (
	muxHello            = 0x00000001
	muxNewSession       = 0x10000002
	muxPermissionDenied = 0x80000002
	muxFailure          = 0x80000003
	muxExitMessage      = 0x80000004
	muxSessionOpened    = 0x80000006
	muxTTYAllocFail     = 0x80000008
	muxVersion          = 4
	// maxMuxPacket is the master's own limit on a packet; a longer one is not ours to send
	// nor a reply to trust.
	maxMuxPacket = 256 * 1024
	// muxEscapeChar is ssh's default escape character, sent as ssh sends it; the master
	// applies it only to a session with a terminal.
	muxEscapeChar = '~'
)

// errNoMuxSession is a session the master connection did not open (none answers, it said
// no, or it spoke out of turn): the command has not run, so the ssh client can run it.
var errNoMuxSession = errors.New("no session through the master connection")

// muxRefused is errNoMuxSession with why.
func muxRefused(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errNoMuxSession, fmt.Sprintf(format, args...))
}

// muxClient is one connection to a master's control socket: one session at most, as the
// master allows.
type muxClient struct {
	conn    *net.UnixConn
	request uint32
	session uint32
}

// dialMaster connects to the master listening at path and checks that it speaks version 4,
// within timeout as ssh does (only the hello has one: a session waits for the host).
func dialMaster(ctx context.Context, path string, timeout time.Duration) (*muxClient, error) {
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, muxRefused("%v", err)
	}
	m := &muxClient{conn: conn.(*net.UnixConn), request: 1}
	if timeout > 0 {
		_ = m.conn.SetDeadline(time.Now().Add(timeout))
	}
	if err := m.hello(); err != nil {
		m.close()
		return nil, err
	}
	_ = m.conn.SetDeadline(time.Time{})
	return m, nil
}

func (m *muxClient) close() { _ = m.conn.Close() }

// hello tells the master our version and reads its own; the extensions it may name after its
// version are none of ours.
func (m *muxClient) hello() error {
	var p muxPacket
	p.u32(muxHello)
	p.u32(muxVersion)
	if err := m.send(p); err != nil {
		return muxRefused("cannot say hello: %v", err)
	}
	r, err := m.receive()
	if err != nil {
		return muxRefused("no hello from the master: %v", err)
	}
	kind, version := r.u32(), r.u32()
	switch {
	case r.err != nil || kind != muxHello:
		return muxRefused("the master did not say hello")
	case version != muxVersion:
		return muxRefused("the master speaks version %d of the multiplexing protocol, not %d", version, muxVersion)
	}
	return nil
}

// openSession asks for command to run without a terminal, with env and the three files as
// its standard input, output and error, and waits until the host has it. env goes whole: the
// master passes on only what its SendEnv allows and adds its SetEnv, as it does for ssh.
func (m *muxClient) openSession(command string, env []string, files [3]*os.File) error {
	var p muxPacket
	p.u32(muxNewSession)
	p.u32(m.request)
	p.str("") // reserved
	p.u32(0)  // no terminal
	// X11 and agent forwarding are asked for as the connection's configuration has them:
	// the master forwards only what its own ForwardX11 and ForwardAgent allow.
	p.u32(1)
	p.u32(1)
	p.u32(0) // a command, not a subsystem
	p.u32(muxEscapeChar)
	p.str(os.Getenv("TERM"))
	p.str(command)
	for _, e := range env {
		p.str(e)
	}
	if len(p) > maxMuxPacket {
		return muxRefused("the command and its environment are too long for one request")
	}
	if err := m.send(p); err != nil {
		return muxRefused("cannot ask for a session: %v", err)
	}
	for _, f := range files {
		if err := m.sendFile(f); err != nil {
			return muxRefused("cannot pass a file to the master: %v", err)
		}
	}
	return m.opened()
}

// opened reads the master's answer to a new session: opened, or why not.
func (m *muxClient) opened() error {
	r, err := m.receive()
	if err != nil {
		return muxRefused("no answer to the session request: %v", err)
	}
	kind, request := r.u32(), r.u32()
	if r.err == nil && request != m.request {
		return muxRefused("the master answered request %d, not %d", request, m.request)
	}
	switch kind {
	case muxSessionOpened:
		m.session = r.u32()
	case muxPermissionDenied, muxFailure:
		reason := r.str()
		if r.err == nil {
			return muxRefused("%s", reason)
		}
	}
	if r.err != nil || kind != muxSessionOpened {
		return muxRefused("unexpected answer 0x%08x to the session request", kind)
	}
	return nil
}

// wait reads what the master says of the session until it closes the connection, as ssh
// does: the exit status comes first, the close once the session's output is all written.
// exited is false when no status came (the command was killed by a signal, the connection
// dropped: ssh's status 255); err is a master that spoke out of turn, the session left as
// it was.
func (m *muxClient) wait() (code int, exited bool, err error) {
	defer m.close()
	for {
		r, readErr := m.receive()
		if readErr != nil {
			return code, exited, nil
		}
		kind, session := r.u32(), r.u32()
		switch {
		case r.err != nil || session != m.session:
			return code, false, fmt.Errorf("message 0x%08x on session %d, not %d", kind, session, m.session)
		case kind == muxExitMessage && !exited:
			status := r.u32()
			code, exited = int(status), r.err == nil
		case kind != muxTTYAllocFail:
			return code, false, fmt.Errorf("the unexpected message 0x%08x", kind)
		}
	}
}

// send writes one packet: its length, then itself.
func (m *muxClient) send(p muxPacket) error {
	buf := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(p)), uint32(len(p)))
	_, err := m.conn.Write(append(buf, p...))
	return err
}

// receive reads one packet.
func (m *muxClient) receive() (*muxReader, error) {
	var head [4]byte
	if _, err := io.ReadFull(m.conn, head[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > maxMuxPacket {
		return nil, fmt.Errorf("a packet of %d bytes from the master", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(m.conn, body); err != nil {
		return nil, err
	}
	return &muxReader{b: body}, nil
}

// sendFile passes f's descriptor to the master, one descriptor with one byte per message as
// the master reads them. The descriptor is read through SyscallConn: Fd would turn the file
// to blocking mode.
func (m *muxClient) sendFile(f *os.File) error {
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var sendErr error
	err = raw.Control(func(fd uintptr) {
		_, _, sendErr = m.conn.WriteMsgUnix([]byte{0}, unix.UnixRights(int(fd)), nil)
	})
	if err != nil {
		return err
	}
	return sendErr
}

// muxPacket is a packet being written, in SSH's wire format.
type muxPacket []byte

func (p *muxPacket) u32(v uint32) { *p = binary.BigEndian.AppendUint32(*p, v) }

func (p *muxPacket) str(s string) {
	p.u32(uint32(len(s)))
	*p = append(*p, s...)
}

// muxReader reads a packet's fields in order; a field past its end sets err and reads as zero.
type muxReader struct {
	b   []byte
	err error
}

func (r *muxReader) u32() uint32 {
	if len(r.b) < 4 {
		r.err = io.ErrUnexpectedEOF
		return 0
	}
	v := binary.BigEndian.Uint32(r.b)
	r.b = r.b[4:]
	return v
}

func (r *muxReader) str() string {
	n := r.u32()
	if r.err != nil || uint64(n) > uint64(len(r.b)) {
		r.err = io.ErrUnexpectedEOF
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}
