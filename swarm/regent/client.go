package regent

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/swarm-dev/swarm/state"
)

// dialTimeout bounds connecting to the Regent, and requestTimeout a whole request, so a
// Regent that hangs cannot hang the command that asks it.
const (
	dialTimeout    = time.Second
	requestTimeout = 5 * time.Second
)

// Client talks to the Regent of one state directory. Its zero value is not usable; make one
// with NewClient. It holds no connection: each request dials anew.
type Client struct {
	dir *state.Dir
}

// NewClient is a client for the Regent of the state directory d.
func NewClient(d *state.Dir) Client { return Client{dir: d} }

// Alive reports whether a Regent runs: one holds the Regent lock.
func (c Client) Alive() bool { return state.IsLocked(FilesOf(c.dir).Lock) }

// PID is the live Regent's pid, 0 when none runs.
func (c Client) PID() int {
	if !c.Alive() {
		return 0
	}
	info, err := ReadInfo(c.dir)
	if err != nil {
		return 0
	}
	return info.PID
}

// Address is where the Regent answers (see Address).
func (c Client) Address() string { return Address(c.dir) }

// Answers reports whether a live Regent accepts connections on its socket.
func (c Client) Answers() bool {
	addr := c.Address()
	if addr == "" || !c.Alive() {
		return false
	}
	conn, err := net.DialTimeout("unix", addr, dialTimeout)
	if err != nil {
		return false
	}
	_ = conn.Close()
	return true
}

// Wake has the Regent look at every loop again now.
func (c Client) Wake() error {
	_, err := c.request(WakeRequest)
	return err
}

// Drop has the Regent stop driving a loop (its kill could not be recorded): it ends the
// loop's agent and does not take the loop up again for as long as it runs.
func (c Client) Drop(name string) error {
	_, err := c.request(DropRequest + " " + name)
	return err
}

// Quit has the Regent leave every loop as it is and exit, for a new one to take them over.
func (c Client) Quit() error {
	_, err := c.request(QuitRequest)
	return err
}

// Status asks the Regent how it is doing.
func (c Client) Status() (*Report, error) {
	line, err := c.request(StatusRequest)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		return nil, fmt.Errorf("the Regent's answer cannot be read: %w", err)
	}
	return &r, nil
}

// request sends one request line and returns the Regent's one-line answer; a refusal is an
// error saying why.
func (c Client) request(req string) (string, error) {
	addr := c.Address()
	if addr == "" {
		return "", errors.New("the Regent is not answering: it recorded no address")
	}
	conn, err := net.DialTimeout("unix", addr, dialTimeout)
	if err != nil {
		return "", fmt.Errorf("the Regent is not answering: %w", err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(requestTimeout))
	if _, err := fmt.Fprintln(conn, req); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("the Regent did not answer: %w", err)
	}
	line = strings.TrimSpace(line)
	if why, ok := strings.CutPrefix(line, ErrorPrefix); ok {
		return "", errors.New(why)
	}
	return line, nil
}
