// Package dcgmtest provides synthetic recordings for the dcgm package: a
// deterministic recording generator with known per-job energy.
package dcgmtest

import (
	"fmt"
	"math"
	"time"

	"github.com/strata-hpc/strata/dcgm"
)

type gpuState struct {
	host         string
	index, minor int
	uuid         string
	counterMJ    float64
	power, util  float64 // during the current second
	lastP, lastU float64 // during the previous second: what a sample reports
	lastJob      int64
}

type gen struct {
	sc    Scenario
	gpus  []*gpuState
	byKey map[[2]string]*gpuState // host, minor → gpu
	truth map[int64]float64       // job → J
}

func newGen(sc Scenario) (*gen, error) {
	g := &gen{sc: sc, byKey: map[[2]string]*gpuState{}, truth: map[int64]float64{}}
	for ni, n := range sc.Nodes {
		for i := 0; i < n.GPUs; i++ {
			minor := i
			if n.Minors != nil {
				minor = n.Minors[i]
			}
			st := &gpuState{host: n.Name, index: i, minor: minor,
				uuid:      fmt.Sprintf("GPU-%08x-%04x-4000-8000-%012x", 0x5a7a0000+ni, i, ni*16+i),
				counterMJ: float64(1e9 + 1e8*ni + 1e7*i)}
			g.gpus = append(g.gpus, st)
			g.byKey[[2]string{n.Name, fmt.Sprint(minor)}] = st
		}
	}
	for _, j := range sc.Jobs {
		for _, a := range j.Allocs {
			for _, m := range a.Indices {
				if g.byKey[[2]string{a.Node, fmt.Sprint(m)}] == nil {
					return nil, fmt.Errorf("generate recording: job %d: no GPU %s minor %d", j.Job, a.Node, m)
				}
			}
		}
	}
	g.model(0)
	return g, nil
}

// jobOn returns the job holding the GPU at second s, or 0.
func (g *gen) jobOn(st *gpuState, s int) int64 {
	t := g.sc.Start.Add(time.Duration(s) * time.Second)
	for _, j := range g.sc.Jobs {
		if t.Before(j.Start) || !t.Before(j.End) {
			continue
		}
		for _, a := range j.Allocs {
			for _, m := range a.Indices {
				if a.Node == st.host && m == st.minor {
					return j.Job
				}
			}
		}
	}
	return 0
}

// model sets power and utilisation of every GPU for second s: 60 W idle,
// a job-dependent wavy load when busy.
func (g *gen) model(s int) {
	for k, st := range g.gpus {
		job := g.jobOn(st, s)
		if job == 0 {
			st.power, st.util = 60+float64(k%3), 0
			continue
		}
		phase := float64(s)/37.0 + float64(job%7) + float64(k)/3
		st.util = 85 + 10*math.Sin(phase)
		st.power = 240 + 90*math.Sin(phase) + float64(job%5)*10
	}
}

// advance integrates second s → s+1 into the counters and the truth.
func (g *gen) advance(s int) {
	for _, st := range g.gpus {
		e := st.power // J over one second
		st.counterMJ += e * 1000
		st.lastJob = g.jobOn(st, s)
		if st.lastJob != 0 {
			g.truth[st.lastJob] += e
		}
		st.lastP, st.lastU = st.power, st.util
	}
	for _, r := range g.sc.Resets {
		if int(r.At/time.Second) == s+1 {
			for _, st := range g.gpus {
				if st.host == r.Host && st.index == r.Index {
					st.counterMJ = 0
				}
			}
		}
	}
	g.model(s + 1)
}

// sweep appends one sample per GPU at second s. Like NVML, a sample reports
// power and utilisation of the period just before it (the previous second).
func (g *gen) sweep(s int, out []dcgm.Sample) []dcgm.Sample {
	t := g.sc.Start.Add(time.Duration(s) * time.Second)
	for _, st := range g.gpus {
		p, u, job := st.lastP, st.lastU, st.lastJob
		if s == 0 {
			p, u, job = st.power, st.util, g.jobOn(st, 0)
		}
		smp := dcgm.Sample{Time: t, Host: st.host, UUID: st.uuid, Index: st.index, Minor: st.minor,
			BusID:   fmt.Sprintf("00000000:%02X:00.0", 0x10+st.index*0x10),
			UtilGPU: math.Round(u), UtilMem: math.Round(u / 2), PowerW: math.Round(p*100) / 100,
			EnergyMJ: uint64(st.counterMJ), MemTotal: 80 << 30, Source: "replay"}
		if job != 0 {
			smp.MemUsed = 60 << 30
			smp.PIDs = []int32{int32(10000 + job)}
		}
		out = append(out, smp)
	}
	return out
}
