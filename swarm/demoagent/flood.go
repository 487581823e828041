package demoagent

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"time"
)

// flood prints numbered lines of build-log width for d (forever when 0): bytesPerSecond of
// them, or as fast as the terminal takes them when it is 0. It stands for an agent whose
// command floods its pane (a verbose build, a runaway loop); swarm must stay bounded under it.
func flood(bytesPerSecond int, d time.Duration) {
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	const pad = " building module with verbose output enabled ........................"
	// A paced flood writes in slices of 10 ms: even enough to read as a steady rate.
	const slice = 10 * time.Millisecond
	perSlice := bytesPerSecond / int(time.Second/slice)
	next := time.Now()
	end := next.Add(d)
	for n := 1; d == 0 || time.Now().Before(end); {
		written := 0
		for perSlice == 0 || written < perSlice {
			line := "flood " + strconv.Itoa(n) + pad + "\n"
			n++
			written += len(line)
			if _, err := w.WriteString(line); err != nil {
				return
			}
			if perSlice == 0 && written >= w.Size() {
				break
			}
		}
		if w.Flush() != nil {
			return
		}
		if perSlice > 0 {
			next = next.Add(slice)
			time.Sleep(time.Until(next))
		}
	}
}

// floodArgs reads @flood's arguments: a byte rate with an optional k or m suffix (1m is one
// MB a second; 0 or nothing for as fast as possible), then how many seconds (none: forever).
func floodArgs(arg string) (int, time.Duration) {
	rate, secs, _ := strings.Cut(arg, " ")
	s, _ := strconv.ParseFloat(strings.TrimSpace(secs), 64)
	return floodRate(rate), time.Duration(s * float64(time.Second))
}

func floodRate(arg string) int {
	mult := 1
	switch {
	case strings.HasSuffix(arg, "k"):
		mult, arg = 1000, strings.TrimSuffix(arg, "k")
	case strings.HasSuffix(arg, "m"):
		mult, arg = 1000_000, strings.TrimSuffix(arg, "m")
	}
	n, _ := strconv.Atoi(arg)
	return max(0, n*mult)
}
