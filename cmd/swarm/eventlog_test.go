package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/swarm-dev/swarm/state/eventlog"
)

// The scripts' writer of events: `eventlog [-dir DIR] [-max BYTES] [-n COUNT] [-every DUR]
// KIND [FIELD=VALUE]...` appends COUNT events of KIND to the event log of DIR ($SWARM_DIR when
// not given) through eventlog.Log.Append, as swarm itself writes them; -max makes the log
// rotate sooner, -every waits that long between two events. FIELD is one of worker,
// iteration, how, reason, what, detail, by, cost, commit, branch, time (RFC 3339); "{i}" in a
// value is the event's number in the run (1, 2, ...), and a value in double quotes is a Go
// string ("\x1b[2J").
func eventlogMain() int {
	fs := flag.NewFlagSet("eventlog", flag.ContinueOnError)
	dir := fs.String("dir", os.Getenv("SWARM_DIR"), "state directory")
	maxSize := fs.Int64("max", 0, "rotate past this many bytes")
	n := fs.Int("n", 1, "how many events")
	every := fs.Duration("every", 0, "the wait between two events")
	if err := fs.Parse(os.Args[1:]); err != nil || fs.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: eventlog [-dir DIR] [-max BYTES] [-n COUNT] [-every DUR] KIND [FIELD=VALUE]...")
		return 2
	}
	log := eventlog.Log{Root: *dir, Max: *maxSize}
	for i := 1; i <= *n; i++ {
		e, err := eventOf(fs.Arg(0), fs.Args()[1:], strconv.Itoa(i))
		if err == nil {
			_, err = log.Append(e)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "eventlog:", err)
			return 1
		}
		if i < *n {
			time.Sleep(*every)
		}
	}
	return 0
}

// eventOf is an event of kind with the fields given, "{i}" in them replaced by i.
func eventOf(kind string, fields []string, i string) (eventlog.Event, error) {
	e := eventlog.Event{Kind: kind}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return e, fmt.Errorf("%q is no FIELD=VALUE", f)
		}
		v = strings.ReplaceAll(v, "{i}", i)
		if strings.HasPrefix(v, `"`) {
			u, err := strconv.Unquote(v)
			if err != nil {
				return e, fmt.Errorf("%s: %v", f, err)
			}
			v = u
		}
		texts := map[string]*string{"worker": &e.Worker, "how": &e.How, "reason": &e.Reason, "what": &e.What,
			"detail": &e.Detail, "by": &e.By, "commit": &e.Commit, "branch": &e.Branch}
		switch {
		case texts[k] != nil:
			*texts[k] = v
		case k == "iteration":
			n, err := strconv.Atoi(v)
			if err != nil {
				return e, err
			}
			e.Iteration = n
		case k == "time":
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return e, err
			}
			e.Time = t
		case k == "cost":
			c, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return e, err
			}
			e.CostUSD = &c
		default:
			return e, fmt.Errorf("no field %q", k)
		}
	}
	return e, nil
}

// cmdEventIDs is the script command `eventids FILE FIRST LAST`: FILE (what `swarm events
// --format json` printed) holds the events FIRST to LAST, each once, in order, and nothing
// else. With !, it does not.
func cmdEventIDs(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: eventids FILE FIRST LAST")
	}
	first, err1 := strconv.ParseInt(args[1], 10, 64)
	last, err2 := strconv.ParseInt(args[2], 10, 64)
	if err1 != nil || err2 != nil {
		ts.Fatalf("eventids: FIRST and LAST are ids")
	}
	problem := eventIDsProblem(ts.ReadFile(args[0]), first, last)
	switch {
	case problem != "" && !neg:
		ts.Fatalf("%s: %s", args[0], problem)
	case problem == "" && neg:
		ts.Fatalf("%s holds the events %d to %d, each once", args[0], first, last)
	}
}

// eventIDsProblem says how the JSON lines of text are not the events first to last in order
// ("" when they are).
func eventIDsProblem(text string, first, last int64) string {
	want := first
	for i, line := range strings.Split(strings.TrimSpace(text), "\n") {
		var e eventlog.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			return fmt.Sprintf("line %d is no event: %v", i+1, err)
		}
		if e.ID != want {
			return fmt.Sprintf("line %d is event %d, want %d", i+1, e.ID, want)
		}
		want++
	}
	if want != last+1 {
		return fmt.Sprintf("the events end at %d, want %d", want-1, last)
	}
	return ""
}
