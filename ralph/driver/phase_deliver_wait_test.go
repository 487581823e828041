package driver

import (
	"path/filepath"
	"testing"
	"time"
)

// noPiper never pipes: the tests below hand the loop a feed that already follows the pane.
type noPiper struct{ t *testing.T }

func (p noPiper) PipeOutput(paneID, fifo string) error {
	p.t.Errorf("pane %s piped again", paneID)
	return nil
}
func (noPiper) StopOutput(string) {}

func followedLoop(t *testing.T) (*Loop, *paneFeed) {
	t.Helper()
	f, err := openFeed(filepath.Join(t.TempDir(), "output.fifo"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.close)
	f.pane = "%1"
	l := &Loop{cfg: Config{Clock: RealClock{}, Output: noPiper{t}}, pane: &paneFollower{output: noPiper{t}, feed: f}}
	l.delivery = &promptDelivery{cfg: &l.cfg, pane: l.pane, drv: l}
	return l, f
}

// An agent that prints while it is being given its prompt is looked at again then, not at
// the next poll: one that takes the prompt and ends at once is not left waiting.
func TestUntilPrintedWakesOnOutput(t *testing.T) {
	l, f := followedLoop(t)
	go func() {
		time.Sleep(30 * time.Millisecond)
		f.arrived()
	}()
	start := time.Now()
	l.delivery.untilPrinted(agent{paneID: "%1"}, 10*time.Second)
	if d := time.Since(start); d < 30*time.Millisecond || d > 5*time.Second {
		t.Errorf("waited %v; want the wait to end with the output, after 30ms", d)
	}
}

// However fast a pane prints, looks at it stay minDeliveryLook apart.
func TestUntilPrintedKeepsLooksApart(t *testing.T) {
	l, f := followedLoop(t)
	f.arrived() // printed before the wait began
	start := time.Now()
	l.delivery.untilPrinted(agent{paneID: "%1"}, 10*time.Second)
	if d := time.Since(start); d < minDeliveryLook || d > 5*time.Second {
		t.Errorf("waited %v; want at least %v", d, minDeliveryLook)
	}
}

// Without output the wait is the poll interval.
func TestUntilPrintedWaitsThePollWithoutOutput(t *testing.T) {
	l, _ := followedLoop(t)
	start := time.Now()
	l.delivery.untilPrinted(agent{paneID: "%1"}, 150*time.Millisecond)
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("waited %v; want the whole 150ms", d)
	}
}
