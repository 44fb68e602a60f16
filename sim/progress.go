package sim

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress is a tiny progress bar for runs of several policies. On a
// terminal it redraws one line every 200 ms; elsewhere it prints a line
// every 10 s, and only once the run has lasted 5 s, so short runs and logs
// stay clean. It is safe for concurrent use.
type Progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	began    time.Time
	last     time.Time
	done     []int
	total    []int
	drawn    bool
	finished int
}

// NewProgress returns a bar for n runs writing to w (stderr).
func NewProgress(w io.Writer, tty bool, n int) *Progress {
	return &Progress{w: w, tty: tty, began: time.Now(), done: make([]int, n), total: make([]int, n)}
}

// Func returns the Config.Progress callback of run i.
func (p *Progress) Func(i int) func(done, total int) {
	return func(done, total int) { p.update(i, done, total) }
}

func (p *Progress) update(i, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done[i], p.total[i] = done, total
	now := time.Now()
	every, after := 10*time.Second, 5*time.Second
	if p.tty {
		every, after = 200*time.Millisecond, 0
	}
	if now.Sub(p.began) < after || now.Sub(p.last) < every {
		return
	}
	p.last = now
	p.draw(now)
}

func (p *Progress) draw(now time.Time) {
	var d, t int
	for i := range p.done {
		d += p.done[i]
		t += p.total[i]
	}
	frac := 0.0
	if t > 0 {
		frac = float64(d) / float64(t)
	}
	const width = 30
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if float64(i) < frac*width {
			bar[i] = '#'
		}
	}
	line := fmt.Sprintf("simulate [%s] %3.0f%% jobs done, %d/%d runs finished, %s",
		bar, frac*100, p.finished, len(p.done), now.Sub(p.began).Round(time.Second))
	if p.tty {
		fmt.Fprintf(p.w, "\r%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.drawn = true
}

// Finish marks run i finished.
func (p *Progress) Finish(i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finished++
}

// Close ends the bar's line if anything was drawn.
func (p *Progress) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn && p.tty {
		p.draw(time.Now())
		fmt.Fprintln(p.w)
	}
}
