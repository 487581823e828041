package driver

import (
	"testing"
	"time"
)

func TestWriteBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 2 * time.Second, 2: 4 * time.Second, 4: 16 * time.Second, 5: 30 * time.Second, 50: 30 * time.Second} {
		if got := WriteBackoff(n); got != want {
			t.Errorf("WriteBackoff(%d) = %v, want %v", n, got, want)
		}
	}
}

func TestNextScreenPoll(t *testing.T) {
	const base = 2 * time.Second
	cases := []struct {
		cur   time.Duration
		moved bool
		base  time.Duration
		want  time.Duration
	}{
		{base, true, base, 250 * time.Millisecond},
		{250 * time.Millisecond, false, base, 500 * time.Millisecond},
		{time.Second, false, base, base},
		{base, false, base, base},
		{base, true, 200 * time.Millisecond, 200 * time.Millisecond},
		{100 * time.Millisecond, false, base, 250 * time.Millisecond},
	}
	for _, c := range cases {
		if got := nextScreenPoll(c.cur, c.moved, c.base); got != c.want {
			t.Errorf("nextScreenPoll(%v, %v, %v) = %v, want %v", c.cur, c.moved, c.base, got, c.want)
		}
	}
}
