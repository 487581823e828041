package web

import (
	"fmt"
	"net/http"
	"time"
)

// stream is the fake event stream: what a test pushes, each with its id.
func (f *fakeAPI) stream(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "no flush", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": hello\n\n")
	fl.Flush()
	ch := make(chan string, 16)
	f.mu.Lock()
	f.subs = append(f.subs, ch)
	f.mu.Unlock()
	select {
	case f.streams <- ch:
	default:
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case msg, ok := <-ch:
			if !ok {
				return
			}
			fmt.Fprint(w, msg)
			fl.Flush()
		}
	}
}

// push sends one event to every stream connected: id and data as swarm serve frames them.
func (f *fakeAPI) push(id int, data string) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ch := range f.subs {
		ch <- fmt.Sprintf("id: %d\ndata: %s\n\n", id, data)
	}
	return time.Now()
}

func (f *fakeAPI) closeStreams() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ch := range f.subs {
		close(ch)
	}
	f.subs = nil
}
