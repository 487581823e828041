package swarm

import (
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

// askReport asks one host for its own workers' report (at most remote.MaxReply bytes of it,
// as every answer from a host).
func askReport(root string, h remote.Host, since time.Time, limit time.Duration) hostReport {
	out := hostReport{host: report.Host{Name: h.Name}}
	data, err := askWithin(root, h, limit, "report", "--host", remote.LocalName, "--format", "json",
		"--since", since.Format(time.RFC3339))
	if err == nil {
		out.report, err = report.Accept(h.Name, data)
	}
	if err != nil {
		out.host.Problem = hostProblem(err)
		return out
	}
	out.host.Answered = true
	return out
}
