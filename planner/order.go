package planner

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// planned is a policy's answer for one job before ranks are assigned.
type planned struct {
	ji      *jobInfo
	action  Action
	start   bool
	w, p    int
	sh      shape
	nodes   []int
	dur     time.Duration
	key     float64 // order within the ranked jobs: lower first
	reasons []Reason
	detail  string
	ranked  bool // gets a rank and a priority
	// poolWait: a waiting job that lacks only burst-buffer space (bbplan.go
	// § Waiting for space): it ranks among the starts by its cost key and
	// gets no begin time.
	poolWait bool
	// Set by finalize: the rank (0 = none) and the predicted start (unless
	// the policy set the start itself: scheduled).
	rank      int
	predStart time.Time
	hasStart  bool
	scheduled bool
	// notBefore is set by finalize for a waiting job that Slurm could
	// start now (deferFitting).
	notBefore time.Time
}

// newPlanned starts the plan of a pending job at its requested size: an
// update with a rank, or a keep without one for jobs that must not change
// (they still take capacity when Slurm starts them).
func (c *cycle) newPlanned(ji *jobInfo) *planned {
	sh, _ := c.sizeShape(ji)
	pl := c.allocPlanned()
	p := psFor(ji, ji.size)
	if s, q, ok := c.withServers(ji, sh, p); ok {
		sh, p = s, q
	}
	*pl = planned{ji: ji, action: ActionUpdate, ranked: true, w: ji.size, p: p, sh: sh}
	if ji.keep {
		pl.action, pl.ranked = ActionKeep, false
		if ji.hintErr != nil {
			pl.detail = ji.hintErr.Error()
		}
	}
	return pl
}

// allocPlanned returns a zero planned from the cycle's slab (one
// allocation per cycle instead of one per job).
func (c *cycle) allocPlanned() *planned {
	if len(c.plSlab) == cap(c.plSlab) {
		c.plSlab = make([]planned, 0, max(16, c.pending, 2*cap(c.plSlab)))
	}
	c.plSlab = c.plSlab[:len(c.plSlab)+1]
	pl := &c.plSlab[len(c.plSlab)-1]
	*pl = planned{} // the slab is the last cycle's
	return pl
}

// keepDecision is the plan of a job the policy must not touch.
func (c *cycle) keepDecision(ji *jobInfo) *planned {
	sh, _ := c.jobShape(ji)
	pl := c.allocPlanned()
	*pl = planned{ji: ji, action: ActionKeep, w: ji.req, sh: sh}
	switch {
	case ji.job.Unreadable != "":
		pl.reasons = []Reason{ReasonUnreadable}
		pl.detail = ji.job.Unreadable
	case c.unweighed(ji.job):
		pl.reasons = []Reason{ReasonSiteUnread}
		pl.detail = ji.job.SiteUnread
	case ji.job.State == JobPending && ji.job.ArrayJobID != 0:
		pl.reasons = []Reason{ReasonArrayJob}
	case ji.job.State == JobPending && ji.job.HetJobID != 0:
		pl.reasons = []Reason{ReasonHetJob}
	case ji.isl == nil:
		pl.reasons = []Reason{ReasonPartitionUnknown}
		pl.detail = fmt.Sprintf("partition %q is not in the snapshot", ji.job.Partition)
	case ji.req == 0:
		pl.reasons = []Reason{ReasonNoGPUs}
	case ji.hintErr != nil:
		pl.reasons = []Reason{ReasonHintInvalid}
		pl.detail = ji.hintErr.Error()
	case ji.job.State == JobRunning:
		pl.reasons = []Reason{ReasonRunning}
	default:
		pl.reasons = []Reason{ReasonRewriteOptOut}
	}
	return pl
}

// finalize assigns ranks, priorities and predicted times, and builds the
// Plan. Ranked plans are ordered by (start now first, aged first, key,
// job ID); rank r gets its priority or nice (Options.rankWrite).
func (c *cycle) finalize(name string, pls []*planned) Plan {
	ranked := c.rank(pls)
	c.predictStarts(ranked)
	c.deferWaiting(ranked)
	n := int64(len(ranked))
	// Order the plans as the Decisions are sorted, (rank, job ID), by
	// sorting indices with the same algorithm and comparisons: the same
	// permutation, without moving the large Decisions.
	idx := make([]int32, len(pls))
	for k := range idx {
		idx[k] = int32(k)
	}
	slices.SortFunc(idx, func(a, b int32) int {
		x, y := pls[a], pls[b]
		if c := cmp.Compare(x.rank, y.rank); c != 0 {
			return c
		}
		return cmp.Compare(x.ji.job.ID, y.ji.job.ID)
	})
	out := Plan{SnapshotID: c.s.ID, Policy: name, Decisions: make([]Decision, len(pls))}
	for k, i := range idx {
		c.decide(pls[i], n, &out.Decisions[k])
	}
	return out
}

// rank orders the ranked plans by (start now first, aged first, key, job
// ID) and numbers them from 1; the others get rank 0.
func (c *cycle) rank(pls []*planned) []*planned {
	// Sort copies of the keys (the same comparisons as on the plans, so
	// the same order) to keep the sort's memory accesses local.
	keys := c.scratch.keys[:0]
	weak := true // the order is a strict weak order (no NaN key)
	for _, pl := range pls {
		pl.rank, pl.notBefore = 0, time.Time{}
		if !pl.scheduled {
			pl.hasStart = false
		}
		if pl.ranked {
			keys = append(keys, rankKey{pl: pl, start: pl.start || pl.poolWait, aged: pl.ji.aged, key: pl.key, id: pl.ji.job.ID, pos: int32(len(keys))})
			weak = weak && !math.IsNaN(pl.key)
		}
	}
	c.scratch.flat, c.scratch.sorted = sortRankKeysIn(keys, weak, c.scratch.flat, c.scratch.sorted)
	c.scratch.keys = keys
	ranked := make([]*planned, len(keys))
	for r, k := range keys {
		ranked[r] = k.pl
		k.pl.rank = r + 1
	}
	return ranked
}

// decide writes pl's Decision into d: what to do, its size and place, its
// rank and priority among the n ranked, its predicted times, and the
// reasons and details that explain it.
func (c *cycle) decide(pl *planned, n int64, d *Decision) {
	*d = Decision{JobID: pl.ji.job.ID, Action: pl.action, Start: pl.start, Workers: pl.w, PS: pl.p,
		GPUsPerNode: pl.sh.gpn, NodeCount: pl.sh.nodes, Placement: c.nodeNames(pl.nodes),
		Reasons: pl.reasons, Detail: pl.detail}
	if len(d.Placement) == 0 {
		d.Placement = nil
	}
	if r := pl.rank; r > 0 {
		d.Rank = r
		d.Priority, d.Nice = c.o.rankWrite(r, n)
		if pl.ji.aged {
			d.Reasons = append(d.Reasons, ReasonAged)
		}
	}
	d.NotBefore = pl.notBefore
	if pl.ji.hints.MemBytes > 0 && pl.sh.gpn > 0 && pl.action == ActionUpdate {
		d.MemoryPerNodeMB = int64(pl.sh.gpn) * pl.ji.memPerW
	}
	taskLayout(d, pl.sh, pl.ji.memPerW)
	c.explain(pl, d)
	if st := pl.predStart; pl.hasStart && pl.dur > 0 {
		d.PredictedStart, d.PredictedEnd = st, st.Add(pl.dur)
		if dl := pl.ji.deadline; !dl.IsZero() && d.PredictedEnd.After(dl) {
			d.Reasons = append(d.Reasons, ReasonDeadlineRisk)
		}
	}
	c.behindOverdue(pl, d)
	c.claimed(pl, d)
	c.bindClaim(pl, d)
	if len(d.Reasons) == 0 {
		d.Reasons = []Reason{ReasonWaitResources}
	}
}

// explain adds to d the reasons and details of what shaped pl beyond its
// size and order: calibration, the user's record, a past deadline, the
// site's caps, the partition chosen.
func (c *cycle) explain(pl *planned, d *Decision) {
	if note := pl.ji.calibNote; note != "" && calibrationUsed(pl, d) {
		d.Reasons = append(d.Reasons, ReasonCalibrated)
		d.Detail = joinDetail(d.Detail, note)
	}
	if cl := pl.ji.job.Claim; !cl.IsZero() {
		r := ReasonPredictionCorrected
		if cl.Distrust {
			r = ReasonClaimDistrusted
		}
		d.Reasons = append(d.Reasons, r)
		d.Detail = joinDetail(d.Detail, cl.Note)
	}
	if b, ok := c.o.Predictor.(PredictionBasis); ok && slices.Contains(d.Reasons, ReasonPredicted) {
		if note := b.Basis(pl.ji.job); note != "" {
			d.Detail = joinDetail(d.Detail, note)
		}
	}
	if pl.ji.deadlinePast {
		d.Reasons = append(d.Reasons, ReasonDeadlinePast)
		d.Detail = joinDetail(d.Detail, "deadline "+pl.ji.hints.Deadline.UTC().Format("2006-01-02T15:04")+" was past at submission: ignored")
	}
	if note := pl.ji.capped; note != "" && pl.action == ActionUpdate {
		d.Reasons = append(d.Reasons, ReasonCapped)
		d.Detail = joinDetail(d.Detail, note)
	}
	if pl.ji.chosen {
		d.Partition = partitionToWrite(pl.ji, d, pl.dur)
		d.Reasons = append(d.Reasons, ReasonPartitionChosen)
		d.Detail = joinDetail(d.Detail, pl.ji.choice)
	}
}

// joinDetail appends sentence b to detail a.
func joinDetail(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// calibrationUsed says whether the job's calibration note explains its
// decision: the speed factor scaled the modelled run time the decision
// rests on, or (power only) the job was sized with the energy term.
func calibrationUsed(pl *planned, d *Decision) bool {
	if slices.Contains(d.Reasons, ReasonModelled) {
		return true
	}
	ji := pl.ji
	return ji.model.calib == 0 && ji.job.State == JobPending && !ji.fixed
}

// sortRankKeys sorts keys stably by rank order. A stable sort by a strict
// weak order (weak: no NaN key) has exactly one result, the order with
// ties broken by position, which pdqsort on packed keys finds faster.
func sortRankKeys(keys []rankKey, weak bool) { sortRankKeysIn(keys, weak, nil, nil) }

// sortRankKeysIn is sortRankKeys with scratch fs and sorted, returned
// (grown) for the next call.
func sortRankKeysIn(keys []rankKey, weak bool, fs []flatRankKey, sorted []rankKey) ([]flatRankKey, []rankKey) {
	if !weak {
		slices.SortStableFunc(keys, func(x, y rankKey) int { return lessInt(x.before(&y)) })
		return fs, sorted
	}
	// Sort pointer-free copies (no write barriers when swapping).
	fs = fs[:0]
	for k := range keys {
		p := keys[k].pack()
		fs = append(fs, flatRankKey{p[0], p[1], keys[k].id, int32(k)})
	}
	slices.SortFunc(fs, func(x, y flatRankKey) int {
		if c := cmp.Compare(x.p0, y.p0); c != 0 {
			return c
		}
		if c := cmp.Compare(x.p1, y.p1); c != 0 {
			return c
		}
		if c := cmp.Compare(x.id, y.id); c != 0 {
			return c
		}
		return cmp.Compare(x.pos, y.pos)
	})
	sorted = sorted[:0]
	for _, f := range fs {
		sorted = append(sorted, keys[f.pos])
	}
	copy(keys, sorted)
	return fs, sorted
}

// flatRankKey is a rankKey packed without pointers (sortRankKeys).
type flatRankKey struct {
	p0, p1 uint64
	id     int64
	pos    int32
}

// rankKey is what the rank order of finalize compares.
type rankKey struct {
	pl          *planned
	start, aged bool
	key         float64
	id          int64
	pos         int32 // position before sorting
}

// pack encodes (not start, not aged) and key so that integer order is the
// rank order of those fields: -0 is +0, and a float's bits are flipped
// into an order-preserving unsigned integer.
func (x *rankKey) pack() [2]uint64 {
	var flags uint64
	if !x.start {
		flags |= 2
	}
	if !x.aged {
		flags |= 1
	}
	f := x.key
	if f == 0 {
		f = 0 // -0 compares equal to +0
	}
	b := math.Float64bits(f)
	if b>>63 == 1 {
		b = ^b
	} else {
		b |= 1 << 63
	}
	return [2]uint64{flags, b}
}

// before is the rank order: start now first, aged first, key, job ID.
func (x *rankKey) before(y *rankKey) bool {
	switch {
	case x.start != y.start:
		return x.start
	case x.aged != y.aged:
		return x.aged
	case x.key != y.key:
		return x.key < y.key
	}
	return x.id < y.id
}

// lessInt turns a less result into a comparison for the slices sorts;
// they only test cmp < 0, exactly where the sort package calls Less, so
// a stable sort gives the same order as sort.SliceStable with less.
func lessInt(less bool) int {
	if less {
		return -1
	}
	return 0
}

// release event for the start-time estimate.
type gpuEvent struct {
	at   time.Time
	gpus int
}

// eventHeap is a min-heap of events by time. It follows container/heap
// step for step (so events with equal times pop in the same order) without
// boxing each event in an interface.
type eventHeap []gpuEvent

func (h eventHeap) less(i, j int) bool { return h[i].at.Before(h[j].at) }

func (h eventHeap) init() {
	n := len(h)
	for i := n/2 - 1; i >= 0; i-- {
		h.down(i, n)
	}
}

func (h *eventHeap) push(e gpuEvent) {
	*h = append(*h, e)
	h.up(len(*h) - 1)
}

func (h *eventHeap) pop() gpuEvent {
	old := *h
	n := len(old) - 1
	old[0], old[n] = old[n], old[0]
	old.down(0, n)
	e := old[n]
	*h = old[:n]
	return e
}

func (h eventHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (h eventHeap) down(i0, n int) bool {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 { // j1 < 0 after int overflow
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h.less(j2, j1) {
			j = j2 // = 2*i + 2  // right child
		}
		if !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
	return i > i0
}

// predictStarts estimates start times per island (pl.predStart, when
// pl.hasStart): jobs starting now start at Now; the others start in rank
// order when enough GPUs are released by running and earlier jobs
// (aggregate GPUs; fragmentation, CPUs and memory ignored, no backfill).
// Jobs that can never get enough GPUs get none.
func (c *cycle) predictStarts(ranked []*planned) {
	type state struct {
		free int
		ev   eventHeap
		last time.Time
	}
	st := make([]state, len(c.islands)) // by island index
	for _, isl := range c.islands {
		s := &st[isl.idx]
		s.last, s.ev = c.s.Now, slices.Grow(isl.evTmp[:0], len(isl.running)+len(isl.jobs))
		s.free, _, _ = c.free(isl)
		for _, ji := range isl.running {
			s.ev = append(s.ev, gpuEvent{at: c.runningEnd(ji), gpus: ji.req})
		}
		s.ev.init()
	}
	defer func() {
		for _, isl := range c.islands {
			isl.evTmp = st[isl.idx].ev[:0]
		}
	}()
	for _, pl := range ranked {
		if pl.ji.isl == nil || pl.scheduled {
			continue
		}
		s := &st[pl.ji.isl.idx]
		if pl.start {
			pl.predStart, pl.hasStart = c.s.Now, true
			s.ev.push(gpuEvent{at: c.s.Now.Add(pl.dur), gpus: pl.w})
			continue
		}
		t := s.last
		for s.free < pl.w && len(s.ev) > 0 {
			e := s.ev.pop()
			s.free += e.gpus
			if e.at.After(t) {
				t = e.at
			}
		}
		if s.free < pl.w {
			continue
		}
		s.free -= pl.w
		s.last = t
		// A job Slurm does not consider yet starts no earlier than that
		// (its GPUs are counted from t on: an estimate, as everywhere here).
		if nb := c.s.Now.Add(pl.ji.notYet); nb.After(t) {
			t = nb
		}
		pl.predStart, pl.hasStart = t, true
		s.ev.push(gpuEvent{at: t.Add(pl.dur), gpus: pl.w})
	}
}
