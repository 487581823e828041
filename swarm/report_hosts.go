package swarm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/swarm-dev/swarm/swarm/remote"
	"github.com/swarm-dev/swarm/swarm/report"
)

// The hosts' part of a report: each host runs its own `swarm report` on its own records, for
// the same window, and this side takes its answer in as untrusted (report.Accept).

// hostReport is what one host said, or why it said nothing.
type hostReport struct {
	host   report.Host
	report report.Report
}

// askReports asks every host at once for its report since since, each within limit.
func askReports(e *env, hosts []remote.Host, since time.Time, limit time.Duration) []hostReport {
	root := e.Dir().Root
	return askEach(hosts, func(h remote.Host) hostReport { return askReport(root, h, since, limit) })
}

// askReport asks one host for its own workers' report.
func askReport(root string, h remote.Host, since time.Time, limit time.Duration) hostReport {
	out := hostReport{host: report.Host{Name: h.Name}}
	data, err := boundedOutput(root, h, limit, "report", "--host", remote.LocalName, "--format", "json",
		"--since", since.Format(time.RFC3339))
	if err == nil {
		out.report, err = report.Accept(h.Name, data)
	}
	if err != nil {
		out.host.Problem = oneLineOf(err)
		return out
	}
	out.host.Answered = true
	return out
}

// boundedOutput runs the host's swarm with args within limit and returns what it printed: at
// most report.MaxReply bytes, or an error saying it was more.
func boundedOutput(root string, h remote.Host, limit time.Duration, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	conn, err := remote.Open(root, h)
	if err != nil {
		return nil, err
	}
	stdout := &capped{max: report.MaxReply, over: cancel}
	stderr := &capped{max: 64 << 10}
	code, err := conn.Run(ctx, args, remote.Streams{Stdout: stdout, Stderr: stderr})
	switch {
	case stdout.full:
		return nil, fmt.Errorf("its report is larger than %d MB", report.MaxReply>>20)
	case err != nil:
		return nil, err
	case code != 0:
		said := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(stderr.buf.Bytes()), []byte("swarm: error: ")))
		if len(said) == 0 {
			return nil, fmt.Errorf("its swarm report failed (exit status %d)", code)
		}
		return nil, errors.New(report.Clean(string(said)))
	}
	return stdout.buf.Bytes(), nil
}

// capped keeps what is written up to max bytes; past that it keeps nothing more, says it is
// full and calls over (which ends the command that writes).
type capped struct {
	buf  bytes.Buffer
	max  int
	full bool
	over func()
}

func (c *capped) Write(p []byte) (int, error) {
	if c.full {
		return len(p), nil
	}
	if c.buf.Len()+len(p) > c.max {
		c.full = true
		if c.over != nil {
			c.over()
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}
