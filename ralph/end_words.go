package ralph

// How an ended loop is said in words: the same in the loop's summary as in ls, status, ralph
// ls and the dashboard, which build on this for the states of a loop still going.

// Words for a loop that has ended.
const (
	EndDone    = "done"    // its work is finished: a done pattern, the DONE file, checks passed
	EndKilled  = "killed"  // a person ended it (swarm kill, swarm ralph stop)
	EndStopped = "stopped" // it stopped for another reason, given with it (max_iterations, ...)
	EndFailed  = "failed"  // it gave up, for the reason given with it
)

// finishedReasons are the exit reasons that mean the loop's work is finished.
var finishedReasons = map[string]bool{"done_pattern": true, "done_file": true, "complete": true}

// EndWords says how a loop that ended with this status and exit reason ended: the word and
// what qualifies it ("" when the word says it all). ok is false for a loop that has not ended.
func EndWords(status Status, reason string) (word, detail string, ok bool) {
	switch {
	case status == StatusFailed:
		return EndFailed, reason, true
	case status != StatusStopped:
		return "", "", false
	case finishedReasons[reason]:
		return EndDone, "", true
	case reason == "killed":
		return EndKilled, "", true
	}
	return EndStopped, reason, true
}
