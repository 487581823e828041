package proc

// Marks: the kernel hands out process ids in turn, each above the last until it comes round
// past the largest (pid_max). So the id it handed out last is a mark in time, and a process
// whose id lies after it, in that round, started later. A loop looks for what its agent left
// outside its group among the processes started since that agent, not among all of them (a
// few hundred on a busy machine, fifty loops' worth of looks a second).

// Mark returns the id the kernel handed out last, in this process's pid namespace; 0 when it
// cannot be read (macOS does not tell it), which stands for "every process".
func Mark() int { return lastPID() }

// startedAfter returns whether a process now listed started after mark was taken. Read after
// the listing, the last id handed out bounds it: ids between mark and it (round past pid_max
// when it came round) are the processes started since. Where that cannot be told (no mark, no
// pid_max, or more than half the ids handed out since, which the last id cannot tell from a
// whole round or more), every process counts as started since.
func startedAfter(mark int) func(pid int) bool {
	if mark <= 0 {
		return func(int) bool { return true }
	}
	return idsAfter(mark, Mark(), pidMax())
}

// idsAfter tells the ids handed out after mark up to last, where ids come round past max.
func idsAfter(mark, last, max int) func(pid int) bool {
	every := func(int) bool { return true }
	if mark <= 0 || last <= 0 || max <= 0 || mark >= max || last >= max {
		return every
	}
	if (last-mark+max)%max > max/2 {
		return every
	}
	if mark <= last {
		return func(pid int) bool { return pid > mark && pid <= last }
	}
	return func(pid int) bool { return pid > mark || pid <= last }
}
