package workertest

import (
	"sync"
	"time"

	"github.com/swarm-dev/swarm/tmux/tmuxtest"
)

// Processes is the process table of the fake panes: a pane's program is its PID.
type Processes struct {
	Fake *tmuxtest.Fake

	mu    sync.Mutex
	kills []int
	// outside are processes outside any pane, by environment entry.
	outside map[string][]int
	onKill  func()
}

// New is the process table of fake's panes.
func New(fake *tmuxtest.Fake) *Processes { return &Processes{Fake: fake} }

// Kills lists the process groups KillGroup was asked to end, in order.
func (p *Processes) Kills() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int(nil), p.kills...)
}

// SetOutside pretends that the processes pids carry tag outside any pane (nil: none).
func (p *Processes) SetOutside(tag string, pids []int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.outside == nil {
		p.outside = map[string][]int{}
	}
	p.outside[tag] = pids
}

// OnKill sets what runs after every KillGroup.
func (p *Processes) OnKill(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.onKill = f
}

func (p *Processes) Tagged(tag string) []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]int(nil), p.outside[tag]...)
}

// Mark stands for every process: the fake's processes carry no start order.
func (p *Processes) Mark() int { return 0 }

func (p *Processes) KillTagged(tag string, _ int, _ time.Duration) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.outside[tag])
	delete(p.outside, tag)
	return n
}

func (p *Processes) KillTaggedEach(tags []string, mark int, grace time.Duration) []int {
	out := make([]int, len(tags))
	for i, tag := range tags {
		out[i] = p.KillTagged(tag, mark, grace)
	}
	return out
}

func (p *Processes) Alive(pid int, _ uint64) bool { return p.Fake.Alive(pid) }

func (p *Processes) KillGroup(pgid int, _ time.Duration) bool {
	p.mu.Lock()
	p.kills = append(p.kills, pgid)
	hook := p.onKill
	p.mu.Unlock()
	p.Fake.KillPID(pgid, 143)
	if hook != nil {
		hook()
	}
	return false
}

func (p *Processes) KillGroups(pgids []int, grace time.Duration) []bool {
	out := make([]bool, len(pgids))
	for i, pgid := range pgids {
		out[i] = p.KillGroup(pgid, grace)
	}
	return out
}
