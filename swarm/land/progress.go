package land

import "time"

// The steps of a landing, as its Progress is told them when each starts.
const (
	StepMerging = "merging"
	StepTesting = "testing"
	// StepTested: the test command ended (Elapsed, Outcome).
	StepTested  = "tested"
	StepMoving  = "moving"
	StepPushing = "pushing"
)

// Event is one step of a landing, for whoever shows the landing's progress (the CLI prints
// it; the package only tells it).
type Event struct {
	Step   string
	Worker string
	Branch string
	// Target is what the branch is merged onto, moved or pushed to: "main", "origin/main".
	Target string
	Time   time.Time
	// Command is the test command (testing, tested).
	Command string
	// Commit is where the target moves (moving) or what is pushed (pushing).
	Commit string
	// Elapsed is how long the test command ran, Outcome how it ended (tested).
	Elapsed time.Duration
	Outcome string
}
