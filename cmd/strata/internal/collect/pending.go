package collect

import (
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
)

// pending is the batch being filled and what the collector knows it has
// stored. Its rule: a job state or assignment change counts as sent only
// once the batch holding it is stored (written, or spooled whole or
// reduced); until then it stays in the batch, carried into the next one
// when a batch can be kept nowhere. So a lost batch costs samples, never an
// assignment left open or a job state.
type pending struct {
	b      db.Batch
	sent   map[int64]planner.JobState // job states stored
	queued map[int64]planner.JobState // job states in b, not stored yet
	last   map[string]dcgm.Sample     // each GPU's latest sample placed in a batch
	prev   map[string]dcgm.Sample     // the one before it
	gen    int                        // batches started so far
	inGen  map[string]int             // the batch (gen) each GPU's last sample went to
	gone   map[string]bool            // each GPU whose last sample a reduced batch left out
	keep   []dcgm.Sample              // the samples of b that per-job energy needs
	kept   map[sampleKey]bool
}

type sampleKey struct {
	uuid string
	ts   int64
}

func newPending() pending {
	return pending{sent: map[int64]planner.JobState{}, queued: map[int64]planner.JobState{},
		last: map[string]dcgm.Sample{}, prev: map[string]dcgm.Sample{}, kept: map[sampleKey]bool{},
		inGen: map[string]int{}, gone: map[string]bool{}}
}

func (p *pending) empty() bool {
	return len(p.b.Samples) == 0 && len(p.b.Assignments) == 0 && len(p.b.Jobs) == 0
}

// addSamples adds a sweep's samples, skipping each one not later than its
// GPU's latest (the clock went back: placed between earlier samples it
// would read as a counter reset); it returns how many it added. A counter
// that went down (a reset) makes that sample and the one before it
// essential; the one before goes with this batch too when an earlier,
// reduced batch left it out.
func (p *pending) addSamples(samples []dcgm.Sample) int {
	n := 0
	for _, s := range samples {
		last, seen := p.last[s.UUID]
		if seen && !s.Time.After(last.Time) {
			continue
		}
		if seen && s.EnergyMJ < last.EnergyMJ {
			if p.gone[s.UUID] {
				p.b.Samples = append(p.b.Samples, last)
			}
			p.essential(last)
			p.essential(s)
		}
		p.b.Samples = append(p.b.Samples, s)
		n++
		p.prev[s.UUID], p.last[s.UUID], p.inGen[s.UUID] = last, s, p.gen
		delete(p.gone, s.UUID)
	}
	return n
}

// essential marks a sample as needed by per-job energy: it goes with the
// batch even when the batch is reduced.
func (p *pending) essential(s dcgm.Sample) {
	if s.UUID == "" {
		return
	}
	k := sampleKey{s.UUID, s.Time.UnixNano()}
	if !p.kept[k] {
		p.kept[k] = true
		p.keep = append(p.keep, s)
	}
}

// changed adds assignment changes; the latest two samples of each GPU that
// changed hands bracket the interval's edge and are essential.
func (p *pending) changed(opened, closed []dcgm.Assignment) {
	for _, as := range [][]dcgm.Assignment{opened, closed} {
		for _, a := range as {
			p.b.Assignments = append(p.b.Assignments, a)
			p.essential(p.prev[a.UUID])
			p.essential(p.last[a.UUID])
		}
	}
}

// job adds a job's record unless its state is already stored or queued.
func (p *pending) job(j planner.Job, end time.Time, hasEnd bool) {
	cur, ok := p.queued[j.ID]
	if !ok {
		cur, ok = p.sent[j.ID]
	}
	if ok && cur == j.State {
		return
	}
	p.queued[j.ID] = j.State
	p.b.Jobs = append(p.b.Jobs, j)
	if hasEnd {
		if p.b.JobEnds == nil {
			p.b.JobEnds = map[int64]time.Time{}
		}
		p.b.JobEnds[j.ID] = end
	}
}

// reduce is b cut down to what per-job GPU-hours and energy need: its
// assignment and job changes and the essential samples.
func (p *pending) reduce(b db.Batch) db.Batch {
	return db.Batch{Cluster: b.Cluster, Assignments: b.Assignments, Jobs: b.Jobs, JobEnds: b.JobEnds,
		Samples: p.keep}
}

// stored records that b is stored (reduced: without the samples that were
// not essential) and starts the next batch.
func (p *pending) stored(reduced bool) {
	if reduced {
		for uuid, s := range p.last {
			if p.inGen[uuid] == p.gen && !p.kept[sampleKey{uuid, s.Time.UnixNano()}] {
				p.gone[uuid] = true
			}
		}
	}
	for _, j := range p.b.Jobs {
		p.sent[j.ID] = j.State
	}
	clear(p.queued)
	clear(p.kept)
	p.keep = p.keep[:0]
	p.b = db.Batch{Samples: p.b.Samples[:0]} // Write keeps no reference: reuse the buffer
	p.gen++
}

// carry starts the next batch with what b could not store: its assignment
// and job changes and its essential samples.
func (p *pending) carry() {
	next := db.Batch{Samples: append(p.b.Samples[:0], p.keep...), Assignments: p.b.Assignments,
		Jobs: p.b.Jobs, JobEnds: p.b.JobEnds}
	p.b = next
	for uuid, s := range p.last { // what was not carried is lost
		if p.inGen[uuid] == p.gen && !p.kept[sampleKey{uuid, s.Time.UnixNano()}] {
			p.gone[uuid] = true
		}
	}
	p.gen++
	for _, s := range p.keep {
		if s.Time.Equal(p.last[s.UUID].Time) {
			p.inGen[s.UUID] = p.gen
		}
	}
}
