package regent

import "strings"

// The wire protocol: a connection carries one request line and one answer line. The answer
// is OK, a line of JSON (a Report, to StatusRequest), or a refusal: ErrorPrefix and why.

// The requests the Regent answers.
const (
	// WakeRequest has the Regent look at every loop again now.
	WakeRequest = "wake"
	// DropRequest, a space and a loop's name, has it end that loop's agent and stop
	// driving the loop for as long as it runs; it answers once the loop's monitor is gone.
	DropRequest = "drop"
	// StatusRequest asks for a Report.
	StatusRequest = "status"
	// QuitRequest has it leave every loop as it is and exit, for a new Regent to take them
	// over.
	QuitRequest = "quit"
)

// OK is the answer to a request that was done.
const OK = "ok"

// ErrorPrefix starts the answer to a request that was refused; why follows.
const ErrorPrefix = "error: "

// Refusal is the answer line that refuses a request for why.
func Refusal(why string) string { return ErrorPrefix + why }

// ParseRequest splits a request line into its word and its argument ("" when it has none).
func ParseRequest(line string) (word, arg string) {
	word, arg, _ = strings.Cut(strings.TrimSpace(line), " ")
	return word, arg
}

// Report is what the Regent says about itself, answering StatusRequest.
type Report struct {
	PID             int      `json:"pid"`
	Started         string   `json:"started"`
	UptimeSeconds   float64  `json:"uptime_seconds"`
	Loops           []string `json:"loops"`
	Heartbeats      []string `json:"heartbeats"` // the workers whose heartbeat it sends
	Events          int64    `json:"events"`
	EventsPerSecond float64  `json:"events_per_second"`
	CPUSeconds      float64  `json:"cpu_seconds"`
	RSSBytes        int64    `json:"rss_bytes"`
	Watching        string   `json:"watching"`
	Panics          int      `json:"panics"`
}
