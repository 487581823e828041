package demoagent

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// floodDirective carries out @flood RATE [SECONDS].
func floodDirective(arg string) {
	if rate, secs, _ := strings.Cut(arg+" ", " "); rate == "yes" {
		floodYes(floodSeconds(secs))
		return
	}
	flood(floodArgs(arg))
}

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

// floodYes runs yes(1) on the agent's terminal for d (forever when 0): the flood of the
// shortest lines, as fast as the terminal takes them.
func floodYes(d time.Duration) {
	cmd := exec.Command("yes")
	cmd.Stdout = os.Stdout
	if err := cmd.Start(); err != nil {
		return
	}
	if d > 0 {
		time.AfterFunc(d, func() { _ = cmd.Process.Kill() })
	}
	_ = cmd.Wait()
}

// floodArgs reads @flood's arguments: a byte rate with an optional k or m suffix (1m is one
// MB a second; 0 or nothing for as fast as possible), then how many seconds (none: forever).
func floodArgs(arg string) (int, time.Duration) {
	rate, secs, _ := strings.Cut(arg, " ")
	return floodRate(rate), floodSeconds(secs)
}

// floodSeconds reads a duration in seconds; none is 0.
func floodSeconds(arg string) time.Duration {
	s, _ := strconv.ParseFloat(strings.TrimSpace(arg), 64)
	return time.Duration(s * float64(time.Second))
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
