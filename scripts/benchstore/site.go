package main

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/planner"
)

// site is a generated GPU cluster: nodes of 8 GPUs, each node cut into
// lanes (groups of GPUs that one job at a time holds: one 8-GPU lane, two
// 4-GPU lanes, 4+2+2, or 2+2+2+1+1), each lane running back-to-back jobs
// with short gaps. Everything is derived from the seed.
type site struct {
	nodes  int
	period time.Duration
	lanes  []lane
	jobs   []job // by start time; job i has id firstID+i
}

// lane is a group of GPUs of one node.
type lane struct {
	node int
	gpus []int // GPU indices on the node
	jobs []int // indices into site.jobs, by start
}

// job is one generated Slurm job holding one lane.
type job struct {
	lane     int32
	user     int16
	from, to int64 // Unix seconds, multiples of the sample period
	util     float32
	idle     bool
}

const (
	gpusPerNode = 8
	firstID     = 1_000_000
	cluster     = "bench"
	users       = 60
)

var lanePatterns = [][]int{{8}, {4, 4}, {4, 2, 2}, {2, 2, 2, 1, 1}}

// newSite schedules jobs on gpus GPUs from start to end.
func newSite(gpus int, period time.Duration, start, end time.Time, seed uint64) *site {
	s := &site{nodes: gpus / gpusPerNode, period: period}
	r := splitmix(seed)
	type pending struct {
		j   job
		key int64
	}
	var all []pending
	p := int64(period / time.Second)
	for n := 0; n < s.nodes; n++ {
		g := 0
		for _, size := range lanePatterns[n%len(lanePatterns)] {
			l := lane{node: n}
			for k := 0; k < size; k++ {
				l.gpus = append(l.gpus, g)
				g++
			}
			li := int32(len(s.lanes))
			s.lanes = append(s.lanes, l)
			t := start.Unix() - int64(r.float()*3600)
			for t < end.Unix() {
				// Lognormal run times: median 40 min, mean about 80 min,
				// from 2 minutes to 3 days.
				d := 2400 * math.Exp(1.2*r.normal())
				d = math.Min(math.Max(d, 120), 72*3600)
				from := t / p * p
				to := (t + int64(d)) / p * p
				if to <= from {
					to = from + p
				}
				j := job{lane: li, user: int16(zipf(r.float(), users)), from: from, to: to,
					util: float32(55 + 43*r.float())}
				j.idle = r.float() < 0.12
				all = append(all, pending{j: j, key: from*4096 + int64(li)})
				t = to + int64(r.exp()*300)
			}
		}
	}
	sort.Slice(all, func(a, b int) bool { return all[a].key < all[b].key })
	s.jobs = make([]job, len(all))
	for i := range all {
		s.jobs[i] = all[i].j
		l := &s.lanes[all[i].j.lane]
		l.jobs = append(l.jobs, i)
	}
	return s
}

// zipf draws a user index 0..n-1 from u ∈ [0,1), the first users busiest.
func zipf(u float64, n int) int {
	return min(n-1, int(math.Floor(float64(n)*math.Pow(u, 2.2))))
}

func (s *site) id(i int) int64 { return firstID + int64(i) }

func uuid(node, gpu int) string { return fmt.Sprintf("GPU-%08x-bench-%04d-%d", node*7919, node, gpu) }
func host(node int) string      { return fmt.Sprintf("gpu%03d", node) }

// plannerJob is job i as the collector's Slurm mapper reports it.
func (s *site) plannerJob(i int, state planner.JobState) planner.Job {
	j := s.jobs[i]
	part := "gpu"
	if j.to-j.from > 12*3600 {
		part = "gpu-long"
	}
	return planner.Job{ID: s.id(i), Name: fmt.Sprintf("train-%d", i%97), User: userName(int(j.user)),
		Account: fmt.Sprintf("proj%02d", int(j.user)%12), Partition: part, State: state,
		SubmitTime: time.Unix(j.from-60-int64(i%600), 0).UTC(), StartTime: time.Unix(j.from, 0).UTC(),
		GPUsPerJob: len(s.lanes[j.lane].gpus)}
}

func userName(u int) string { return fmt.Sprintf("user%02d", u) }

// power is a GPU's draw in W while job j holds it (or idles, j nil).
func power(j *job) (util, watts float64) {
	switch {
	case j == nil:
		return 0, 55
	case j.idle:
		return 1, 68
	default:
		return float64(j.util), 90 + 3.2*float64(j.util)
	}
}

// sampler produces the samples of every GPU, sweep by sweep, with the job
// changes of each sweep, from a start time on.
type sampler struct {
	s      *site
	t      int64    // next sweep, Unix seconds
	cur    []int    // per lane: index into lane.jobs of the job at or after t
	energy []uint64 // per GPU (node*8+gpu), mJ
	noise  rng
}

func newSampler(s *site, from time.Time) *sampler {
	sm := &sampler{s: s, t: from.Unix(), cur: make([]int, len(s.lanes)), energy: make([]uint64, s.nodes*gpusPerNode),
		noise: splitmix(42)}
	for li, l := range s.lanes {
		k := sort.Search(len(l.jobs), func(k int) bool { return s.jobs[l.jobs[k]].to > sm.t })
		sm.cur[li] = k
	}
	for g := range sm.energy {
		sm.energy[g] = uint64(g)*1e9 + 5e12
	}
	return sm
}

// batch returns the samples of the next sweeps sweeps and the job and
// assignment changes at them: a job starting at a sweep opens its GPUs'
// assignments and is reported RUNNING; one ending closes them and is
// reported COMPLETED with its end.
func (sm *sampler) batch(sweeps int) (out []dcgm.Sample, jobs []planner.Job, as []dcgm.Assignment, ends map[int64]time.Time) {
	s := sm.s
	p := int64(s.period / time.Second)
	out = make([]dcgm.Sample, 0, sweeps*len(sm.energy))
	for k := 0; k < sweeps; k++ {
		t := sm.t
		ts := time.Unix(t, 0).UTC()
		for li := range s.lanes {
			l := &s.lanes[li]
			var holder *job
			for sm.cur[li] < len(l.jobs) {
				i := l.jobs[sm.cur[li]]
				j := &s.jobs[i]
				if j.to == t { // ends at this sweep: close
					if ends == nil {
						ends = map[int64]time.Time{}
					}
					ends[s.id(i)] = ts
					jobs = append(jobs, s.plannerJob(i, planner.JobCompleted))
					for _, g := range l.gpus {
						as = append(as, dcgm.Assignment{Job: s.id(i), Host: host(l.node), UUID: uuid(l.node, g),
							From: time.Unix(j.from, 0).UTC(), To: ts})
					}
				}
				if j.to <= t {
					sm.cur[li]++
					continue
				}
				if j.from == t { // starts at this sweep: open
					jobs = append(jobs, s.plannerJob(i, planner.JobRunning))
					for _, g := range l.gpus {
						as = append(as, dcgm.Assignment{Job: s.id(i), Host: host(l.node), UUID: uuid(l.node, g), From: ts})
					}
				}
				if j.from < t { // a sample describes the period before it
					holder = j
				}
				break
			}
			util, watts := power(holder)
			for _, g := range l.gpus {
				gi := l.node*gpusPerNode + g
				n := sm.noise.float() - 0.5
				u := math.Max(0, math.Min(100, util+8*n*math.Min(util, 1)))
				w := watts + 10*n
				sm.energy[gi] += uint64(w * float64(p) * 1000)
				smp := dcgm.Sample{Time: ts, Host: host(l.node), UUID: uuid(l.node, g), Index: g, Minor: g,
					UtilGPU: math.Round(u), UtilMem: math.Round(u * 0.4), PowerW: math.Round(w*10) / 10,
					EnergyMJ: sm.energy[gi], MemUsed: 2 << 30, MemTotal: 80 << 30, Source: "dcgm"}
				if holder != nil {
					smp.MemUsed = 61 << 30
					smp.PIDs = []int32{int32(10000 + gi)}
				}
				out = append(out, smp)
			}
		}
		sm.t += p
	}
	return out, jobs, as, ends
}

// rng is splitmix64: fast, deterministic.
type rng struct{ x uint64 }

func splitmix(seed uint64) rng { return rng{x: seed} }

func (r *rng) next() uint64 {
	r.x += 0x9e3779b97f4a7c15
	z := r.x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *rng) float() float64 { return float64(r.next()>>11) / (1 << 53) }
func (r *rng) exp() float64   { return -math.Log(1 - r.float()) }
func (r *rng) normal() float64 {
	return math.Sqrt(-2*math.Log(1-r.float())) * math.Cos(2*math.Pi*r.float())
}
