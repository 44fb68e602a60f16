// Command gpucheck samples every GPU through DCGM and NVML side by side for
// a while and compares what they measure: the energy each counter adds over
// the run and the mean utilization, per GPU. It prints one JSON summary on
// stdout (scripts/gpu-check.sh runs it under a small load). Built with
// -tags dcgm,nvml on a machine with an NVIDIA GPU; without them it fails
// with the sources' own errors.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"time"

	"github.com/strata-hpc/strata/dcgm"
)

// gpu accumulates one GPU's readings from one source.
type gpu struct {
	first, last  dcgm.Sample
	utilSum      float64
	powerSum     float64
	n            int
	integratedWJ float64 // ∫ power dt, joules
}

func (g *gpu) add(s dcgm.Sample) {
	if g.n > 0 {
		g.integratedWJ += (s.PowerW + g.last.PowerW) / 2 * s.Time.Sub(g.last.Time).Seconds()
	} else {
		g.first = s
	}
	g.last = s
	g.utilSum += s.UtilGPU
	g.powerSum += s.PowerW
	g.n++
}

func (g *gpu) energyJ() float64 { return float64(g.last.EnergyMJ-g.first.EnergyMJ) / 1000 }

// result is one GPU's comparison.
type result struct {
	UUID            string  `json:"uuid"`
	Samples         int     `json:"samples"`
	DCGMEnergyJ     float64 `json:"dcgm_energy_j"`
	NVMLEnergyJ     float64 `json:"nvml_energy_j"`
	EnergyDiffPct   float64 `json:"energy_diff_pct"`
	DCGMMeanUtil    float64 `json:"dcgm_mean_util_pct"`
	NVMLMeanUtil    float64 `json:"nvml_mean_util_pct"`
	UtilDiffPoints  float64 `json:"util_diff_points"`
	NVMLPowerIntJ   float64 `json:"nvml_power_integral_j"`
	DCGMMeanPowerW  float64 `json:"dcgm_mean_power_w"`
	NVMLMeanPowerW  float64 `json:"nvml_mean_power_w"`
	WithinOnePctAll bool    `json:"within_1pct"`
}

func main() {
	dur := flag.Duration("duration", 60*time.Second, "how long to sample")
	every := flag.Duration("every", time.Second, "sampling interval")
	load := flag.String("load", "", "what load ran meanwhile (recorded in the summary)")
	flag.Parse()
	if err := run(*dur, *every, *load); err != nil {
		fmt.Fprintln(os.Stderr, "gpucheck:", err)
		os.Exit(1)
	}
}

func run(dur, every time.Duration, load string) error {
	ds, err := dcgm.NewDCGMSource(dcgm.DCGMConfig{})
	if err != nil {
		return err
	}
	defer ds.Close()
	ns, err := dcgm.NewNVMLSource(dcgm.NVMLConfig{})
	if err != nil {
		return err
	}
	defer ns.Close()
	ctx := context.Background()
	by := map[string]map[string]*gpu{"dcgm": {}, "nvml": {}}
	srcs := map[string]dcgm.Source{"dcgm": ds, "nvml": ns}
	end := time.Now().Add(dur)
	for t := time.Now(); t.Before(end); t = t.Add(every) {
		for name, src := range srcs {
			ss, err := src.Snapshot(ctx)
			if err != nil {
				return fmt.Errorf("%s snapshot: %w", name, err)
			}
			for _, s := range ss {
				g := by[name][s.UUID]
				if g == nil {
					g = &gpu{}
					by[name][s.UUID] = g
				}
				g.add(s)
			}
		}
		time.Sleep(time.Until(t.Add(every)))
	}
	var out []result
	for uuid, d := range by["dcgm"] {
		n := by["nvml"][uuid]
		if n == nil {
			return errors.New("GPU " + uuid + " seen by dcgm, not by nvml")
		}
		r := result{UUID: uuid, Samples: min(d.n, n.n), DCGMEnergyJ: d.energyJ(), NVMLEnergyJ: n.energyJ(),
			DCGMMeanUtil: d.utilSum / float64(d.n), NVMLMeanUtil: n.utilSum / float64(n.n), NVMLPowerIntJ: n.integratedWJ,
			DCGMMeanPowerW: d.powerSum / float64(d.n), NVMLMeanPowerW: n.powerSum / float64(n.n)}
		r.EnergyDiffPct = 100 * math.Abs(r.DCGMEnergyJ-r.NVMLEnergyJ) / math.Max(r.NVMLEnergyJ, 1e-9)
		r.UtilDiffPoints = math.Abs(r.DCGMMeanUtil - r.NVMLMeanUtil)
		r.WithinOnePctAll = r.EnergyDiffPct <= 1 && r.UtilDiffPoints <= 1
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UUID < out[j].UUID })
	ok := len(out) > 0
	for _, r := range out {
		ok = ok && r.WithinOnePctAll
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"duration_s": dur.Seconds(), "interval_s": every.Seconds(),
		"load": load, "gpus": out, "agree_within_1pct": ok})
}
