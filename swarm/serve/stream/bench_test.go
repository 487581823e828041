package stream

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/swarm-dev/swarm/state/eventlog"
)

// BenchmarkFiftySubscribers: 50 subscribers over loopback HTTP, 10 events a second appended
// for 5 s; the latency from Append (the event's time) to each subscriber's receipt.
func BenchmarkFiftySubscribers(b *testing.B) {
	const subscribers, perSecond, seconds = 50, 10, 5
	for range b.N {
		s := serve(b, Config{})
		cs := make([]*client, subscribers)
		for i := range cs {
			cs[i] = subscribe(b, s.url, "")
		}
		var mu sync.Mutex
		var lat []time.Duration
		var wg sync.WaitGroup
		for _, c := range cs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range perSecond * seconds {
					r := c.next(b, 5*time.Second)
					mu.Lock()
					lat = append(lat, r.at.Sub(r.event.Time))
					mu.Unlock()
				}
			}()
		}
		tick := time.NewTicker(time.Second / perSecond)
		for range perSecond * seconds {
			<-tick.C
			s.add(b, 1, eventlog.Event{Kind: eventlog.IterationStarted, Worker: "w1"})
		}
		tick.Stop()
		wg.Wait()
		slices.Sort(lat)
		b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
		b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
		b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
		for _, c := range cs {
			c.close()
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
