package egress

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"
)

// Why a connection was refused, as a Refusal says it.
const (
	WhyNotAllowed = "not in the allowlist"
	WhyBadTarget  = "not a host and port"
	WhyNotProxied = "not a proxy request: only CONNECT and absolute http:// requests are forwarded"
)

// LogMax bounds the refusal log: an agent that retries a refused host in a tight loop must
// not fill the disk. Past it, one last line says so and nothing more is appended.
const LogMax = 1 << 20

// logFullWhy is the why of the log's last line; ReadRefusals returns it as a Refusal with no
// host, so whoever shows the refusals also says that later ones were not kept.
const logFullWhy = "refusals are no longer logged: the log reached its limit"

// logFullRoom is kept free below LogMax for the last line.
const logFullRoom = 256

// Refusal is one connection the proxy refused. Host is what the agent asked for, made safe
// to print (at most 253 bytes, printable ASCII, anything else as '?'); Port is 0 when the
// request named none.
type Refusal struct {
	Time time.Time `json:"time"`
	Host string    `json:"host"`
	Port int       `json:"port"`
	Why  string    `json:"why"`
}

// printable is s cut to the length of a DNS name, with every byte that is not printable
// ASCII replaced: the host comes from the agent, and ends on a terminal.
func printable(s string) string {
	if len(s) > MaxEntryLen {
		s = s[:MaxEntryLen]
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b)
}

// refusalLog appends refusals to a file as JSON lines, up to LogMax.
type refusalLog struct {
	path   string
	opened bool
	size   int64
	full   bool
}

func (l *refusalLog) append(r Refusal) {
	if l.path == "" || l.full {
		return
	}
	if !l.opened {
		l.opened = true
		l.size, l.full = logState(l.path)
		if l.full {
			return
		}
	}
	line, err := json.Marshal(r)
	if err != nil {
		return
	}
	line = append(line, '\n')
	if l.size+int64(len(line)) > LogMax-logFullRoom {
		l.full = true
		line, _ = json.Marshal(Refusal{Time: r.Time, Why: logFullWhy})
		line = append(line, '\n')
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	n, _ := f.Write(line)
	l.size += int64(n)
	f.Close()
}

// logState is the size of an existing log and whether it is already full: a proxy started
// again for the next iteration appends to the same log, and says it is full only once.
func logState(path string) (size int64, full bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, false
	}
	size = info.Size()
	tail := make([]byte, min(size, logFullRoom))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
		return size, false
	}
	return size, bytes.Contains(tail, []byte(logFullWhy)) || size >= LogMax
}

// logSync serialises the proxy's refusals: the callback and the log each hear one at a time.
type logSync struct {
	mu  sync.Mutex
	log refusalLog
}

// readMax bounds what ReadRefusals reads of a log: a log swarm wrote is under LogMax, and a
// larger file is not one of its logs, so only its last readMax bytes are read.
const readMax = 4 * LogMax

// ReadRefusals reads the refusal log at path: its last n refusals (all of them when n is
// negative, none when n is 0), oldest first, and how many it holds in all. A log that
// reached its limit ends with a Refusal with no Host whose Why says that later refusals were
// not logged; it is not counted. A missing log is no refusals. Lines that are not refusals
// (a torn last line) are skipped.
func ReadRefusals(path string, n int) ([]Refusal, int, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > readMax {
		if _, err := f.Seek(info.Size()-readMax, io.SeekStart); err != nil {
			return nil, 0, err
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, readMax))
	if err != nil {
		return nil, 0, err
	}
	var all []Refusal
	total := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		var r Refusal
		if json.Unmarshal(line, &r) != nil || r.Why == "" {
			continue
		}
		r.Host, r.Why = printable(r.Host), printable(r.Why)
		if r.Host != "" || r.Why != logFullWhy {
			total++
		}
		all = append(all, r)
	}
	if n >= 0 && len(all) > n {
		all = all[len(all)-n:]
	}
	if len(all) == 0 {
		all = nil
	}
	return all, total, nil
}
