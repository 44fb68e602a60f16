package config

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/strata-hpc/strata/planner"
)

// Planner is the [planner] section: the policies' settings, used alike by
// run, plan, explain and simulate. Zero values keep the planner's defaults.
//
//	[planner]
//	energy-weight = 0.0            # λ_E of smd's and andreas' objective (weighted JCT-seconds per kWh)
//	tardiness-weight = 0.0         # λ_T: per second late and unit of weight= (smd, andreas)
//	gpu-watts = 300                # mean power of a busy GPU (energy term)
//	tiresias-threshold-gpu-hours = 1
//	priority-base = 100000         # rank r gets base + (N-r)·step
//	priority-step = 10
//	priority-mode = "nice"         # Strata's order as a nice within ±nice-band (Slurm's multifactor keeps counting), or "absolute"
//	nice-band = 4000               # the nice of the best rank is -band, of the last +band (0: no order written)
//	ps-comm = "overlap"            # or "no-overlap"
//	worker-bandwidth-gbps = 10     # NIC of a worker, Gb/s
//	ps-bandwidth-gbps = 10
//	intra-node-gbps = 400          # all-reduce inside a node, Gb/s
//	inter-node-gbps = 100
//	burst-buffer-gbps = 0          # stage-in bandwidth per job of pools without their own (0: unknown)
//	burst-buffer-pool-gbps = 0     # a pool's total bandwidth, shared by concurrent stage-ins (0: no limit)
//	reference-tflops = 10          # sustained TFLOP/s of the reference GPU (params=/flops= hints)
//	node-gpus = 8
//	default-duration = "1h"        # a job with no hint, no prediction, no time limit
//	starvation-age = "24h"         # promoted ahead after waiting this long ...
//	starvation-stretch = 4         # ... and this many times its own run time (-1: age alone)
//	starvation-max-wait = "168h"   # ... or this long, whatever its length
//	early-starvation-stretch = 0   # > 0: also promote, one per partition, the longest-waiting job past 1 h and this many times its run
//	max-options-per-job = 12
//	andreas-iterations = 100       # MaxIt of the andreas policy's randomized greedy
//	long-job = "2h"
//	long-job-share = 0.25
//	top-tier = false               # true: jobs listing several partitions get the cheapest
//	shrink = false                 # true: a gpus= range may give a job fewer GPUs than it asked for
//	bind-claims = false            # true: lower the time limit of a job whose user's record shows understated claims
//	claim-margin = 2.0             # the bound limit over the prediction (≥ 1)
//	claim-floor = "30m"            # the least limit a binding writes (≥ 10m)
//	[planner.gpu-speed]            # GRES type → speed against the reference GPU
//	a100 = 2.5
//	[planner.gpu-memory-mib]       # GRES type → memory; enables SMD's fit check
//	a100 = 40960
//	[[planner.limits]]             # caps on what hints may ask (none given: weight ≤ 1, range ≤ 2× request)
//	partition = "gpu"
//	account = ""
//	max-weight = 10                # a grant: weight= up to the largest max-weight among matching limits (none: 1)
//	max-gpus = 64
//	max-range-factor = 2
type Planner struct {
	EnergyWeight, TardinessWeight, GPUWatts          float64
	TiresiasThresholdGPUHours                        float64
	PriorityBase, PriorityStep                       int64
	PSComm                                           string
	WorkerGbps, PSGbps, IntraNodeGbps, InterNodeGbps float64
	ReferenceTFLOPS                                  float64
	NodeGPUs, MaxOptionsPerJob, AndreasIterations    int
	DefaultDuration, StarvationAge, LongJob          time.Duration
	StarvationStretch, EarlyStarvationStretch        float64
	StarvationMaxWait                                time.Duration
	LongJobShare                                     float64
	GPUSpeed                                         map[string]float64
	GPUMemoryMiB                                     map[string]int64
	Limits                                           []planner.Limit
	// LimitsSet: the file has a limits key (an empty list switches the
	// default caps off).
	LimitsSet bool
	// BurstBufferGbps is the stage-in bandwidth per job (Gb/s) of the
	// burst-buffer pools that report none (planner.Options.BurstBufferBps).
	BurstBufferGbps float64
	// BurstBufferPoolGbps is a pool's total bandwidth (Gb/s), shared by the
	// stage-ins under way (planner.Options.BurstBufferPoolBps).
	BurstBufferPoolGbps float64
	// TopTier: top-tier = true (planner.Options.TopTier).
	TopTier bool
	// BindClaims, ClaimMargin and ClaimFloor: bind-claims, claim-margin,
	// claim-floor (planner.Options).
	BindClaims  bool
	ClaimMargin float64
	// Shrink: shrink = true (planner.Options.KeepRequest off).
	Shrink     bool
	ClaimFloor time.Duration
	// PriorityMode and NiceBand: priority-mode, nice-band
	// (planner.Options); NiceBand counts only when the file sets it.
	PriorityMode string
	NiceBand     int64
	SiteWeights  planner.SiteWeights // [planner.site-weights] (siteweights.go)
	// set holds the keys the file gave, as written, for Settings.
	set map[string]string
}

// plannerKey reads one [planner] key into p.
type plannerKey struct {
	name string
	read func(p *Planner, v any) error
}

var plannerKeys = []plannerKey{
	{"energy-weight", num(func(p *Planner) *float64 { return &p.EnergyWeight })},
	{"tardiness-weight", num(func(p *Planner) *float64 { return &p.TardinessWeight })},
	{"gpu-watts", num(func(p *Planner) *float64 { return &p.GPUWatts })},
	{"tiresias-threshold-gpu-hours", num(func(p *Planner) *float64 { return &p.TiresiasThresholdGPUHours })},
	{"priority-base", integer(func(p *Planner) *int64 { return &p.PriorityBase })},
	{"priority-step", integer(func(p *Planner) *int64 { return &p.PriorityStep })},
	{"priority-mode", func(p *Planner, v any) error {
		s, ok := v.(string)
		if !ok || (s != string(planner.PriorityNice) && s != string(planner.PriorityAbsolute)) {
			return fmt.Errorf("want \"nice\" (Strata's order as a nice within ±nice-band) or \"absolute\" (fixed priorities)")
		}
		p.PriorityMode = s
		return nil
	}},
	{"nice-band", func(p *Planner, v any) error {
		n, ok := v.(int64)
		if !ok || n < 0 || n > 1<<31-3 {
			return fmt.Errorf("want a whole number from 0 to 2147483645 (the nice of the best rank is -band)")
		}
		p.NiceBand = n
		return nil
	}},
	{"ps-comm", func(p *Planner, v any) error {
		s, ok := v.(string)
		if !ok || (s != string(planner.PSCommOverlap) && s != string(planner.PSCommNoOverlap)) {
			return fmt.Errorf("want \"overlap\" or \"no-overlap\"")
		}
		p.PSComm = s
		return nil
	}},
	{"worker-bandwidth-gbps", num(func(p *Planner) *float64 { return &p.WorkerGbps })},
	{"ps-bandwidth-gbps", num(func(p *Planner) *float64 { return &p.PSGbps })},
	{"intra-node-gbps", num(func(p *Planner) *float64 { return &p.IntraNodeGbps })},
	{"inter-node-gbps", num(func(p *Planner) *float64 { return &p.InterNodeGbps })},
	{"burst-buffer-gbps", num(func(p *Planner) *float64 { return &p.BurstBufferGbps })},
	{"burst-buffer-pool-gbps", num(func(p *Planner) *float64 { return &p.BurstBufferPoolGbps })},
	{"reference-tflops", num(func(p *Planner) *float64 { return &p.ReferenceTFLOPS })},
	{"top-tier", func(p *Planner, v any) error {
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("want true (jobs that list several partitions are given the cheapest) or false (planned in the first they list)")
		}
		p.TopTier = b
		return nil
	}},
	{"shrink", func(p *Planner, v any) error {
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("want false (no job gets fewer GPUs than it asked for) or true (a gpus= range may shrink a job, its modelled run at most half its time limit)")
		}
		p.Shrink = b
		return nil
	}},
	{"bind-claims", func(p *Planner, v any) error {
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("want true (a hint-timed job's time limit is lowered to claim-margin × its prediction) or false")
		}
		p.BindClaims = b
		return nil
	}},
	{"claim-margin", func(p *Planner, v any) error {
		f, err := positive(v)
		if err != nil || f < 1 {
			return fmt.Errorf("want a factor ≥ 1 (the bound limit over the prediction)")
		}
		p.ClaimMargin = f
		return nil
	}},
	{"claim-floor", func(p *Planner, v any) error {
		if err := dur(func(p *Planner) *time.Duration { return &p.ClaimFloor })(p, v); err != nil {
			return err
		}
		if p.ClaimFloor < planner.MinBoundLimit {
			return fmt.Errorf("want a duration ≥ %v", planner.MinBoundLimit)
		}
		return nil
	}},
	{"node-gpus", count(func(p *Planner) *int { return &p.NodeGPUs })},
	{"max-options-per-job", count(func(p *Planner) *int { return &p.MaxOptionsPerJob })},
	{"andreas-iterations", count(func(p *Planner) *int { return &p.AndreasIterations })},
	{"default-duration", dur(func(p *Planner) *time.Duration { return &p.DefaultDuration })},
	{"starvation-age", dur(func(p *Planner) *time.Duration { return &p.StarvationAge })},
	{"starvation-stretch", func(p *Planner, v any) error {
		f, ok := v.(float64)
		if n, isInt := v.(int64); isInt {
			f, ok = float64(n), true
		}
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 && f != -1 {
			return fmt.Errorf("want a factor ≥ 0 (0: the default 4), or -1 for the age alone")
		}
		p.StarvationStretch = f
		return nil
	}},
	{"early-starvation-stretch", num(func(p *Planner) *float64 { return &p.EarlyStarvationStretch })},
	{"starvation-max-wait", dur(func(p *Planner) *time.Duration { return &p.StarvationMaxWait })},
	{"long-job", dur(func(p *Planner) *time.Duration { return &p.LongJob })},
	{"long-job-share", func(p *Planner, v any) error {
		if err := num(func(p *Planner) *float64 { return &p.LongJobShare })(p, v); err != nil {
			return err
		}
		if p.LongJobShare > 1 {
			return fmt.Errorf("want a share of the partition's GPUs from 0 to 1 (1 switches the bound off)")
		}
		return nil
	}},
	{"gpu-speed", func(p *Planner, v any) error {
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("want a table of GRES type = speed factor, e.g. [planner.gpu-speed] a100 = 2.5")
		}
		p.GPUSpeed = map[string]float64{}
		var errs []error
		for _, t := range sortedKeys(m) {
			f, err := positive(m[t])
			if err != nil || f == 0 {
				errs = append(errs, fmt.Errorf("%s: want a speed factor > 0", t))
				continue
			}
			p.GPUSpeed[strings.ToLower(t)] = f
		}
		return errors.Join(errs...)
	}},
	{"gpu-memory-mib", func(p *Planner, v any) error {
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("want a table of GRES type = MiB, e.g. [planner.gpu-memory-mib] a100 = 40960")
		}
		p.GPUMemoryMiB = map[string]int64{}
		var errs []error
		for _, t := range sortedKeys(m) {
			n, ok := m[t].(int64)
			if !ok || n <= 0 {
				errs = append(errs, fmt.Errorf("%s: want a whole number of MiB > 0", t))
				continue
			}
			p.GPUMemoryMiB[strings.ToLower(t)] = n
		}
		return errors.Join(errs...)
	}},
	{"limits", readLimits},
	{"site-weights", readSiteWeights},
}

func decodePlanner(sec any) (Planner, error) {
	var p Planner
	m, ok := sec.(map[string]any)
	if !ok {
		return p, fmt.Errorf("planner: want a section [planner]")
	}
	p.set = map[string]string{}
	known := map[string]plannerKey{}
	for _, k := range plannerKeys {
		known[k.name] = k
	}
	var errs []error
	for _, raw := range sortedKeys(m) {
		name := strings.ReplaceAll(strings.ToLower(raw), "_", "-")
		k, ok := known[name]
		if !ok {
			errs = append(errs, fmt.Errorf("planner.%s: unknown key (known: %s)", name, strings.Join(plannerKeyNames(), ", ")))
			continue
		}
		if err := k.read(&p, m[raw]); err != nil {
			if j, ok := err.(interface{ Unwrap() []error }); ok { // a table: one line per entry
				for _, e := range j.Unwrap() {
					errs = append(errs, fmt.Errorf("planner.%s: %w", name, e))
				}
			} else {
				errs = append(errs, fmt.Errorf("planner.%s = %s: %w", name, show(m[raw]), err))
			}
			continue
		}
		p.set[name] = show(m[raw])
	}
	return p, errors.Join(errs...)
}

func plannerKeyNames() []string {
	out := make([]string, len(plannerKeys))
	for i, k := range plannerKeys {
		out[i] = k.name
	}
	return out
}

func show(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case map[string]any:
		parts := make([]string, 0, len(v))
		for _, k := range sortedKeys(v) {
			parts = append(parts, k+"="+show(v[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []map[string]any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = show(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

func readLimits(p *Planner, v any) error {
	p.LimitsSet = true
	var rows []map[string]any
	switch v := v.(type) {
	case []map[string]any:
		rows = v
	case []any:
		for _, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				return fmt.Errorf("want [[planner.limits]] tables")
			}
			rows = append(rows, m)
		}
	default:
		return fmt.Errorf("want [[planner.limits]] tables")
	}
	var errs []error
	for i, r := range rows {
		var l planner.Limit
		for _, k := range sortedKeys(r) {
			var err error
			switch strings.ReplaceAll(k, "_", "-") {
			case "partition":
				l.Partition, err = str(r[k])
			case "account":
				l.Account, err = str(r[k])
			case "qos":
				l.QOS, err = str(r[k])
			case "max-weight":
				l.MaxWeight, err = positive(r[k])
			case "max-range-factor":
				l.MaxRangeFactor, err = positive(r[k])
			case "max-gpus":
				n, ok := r[k].(int64)
				if !ok || n < 0 || n > 1<<20 {
					err = fmt.Errorf("want a whole number from 0 to %d", 1<<20)
				}
				l.MaxGPUs = int(n)
			default:
				err = fmt.Errorf("unknown key (known: partition, account, qos, max-weight, max-gpus, max-range-factor)")
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("limit %d: %s: %w", i+1, k, err))
			}
		}
		p.Limits = append(p.Limits, l)
	}
	return errors.Join(errs...)
}

func str(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("want a string")
	}
	return s, nil
}

// Options returns the planner options of the section: the site's defaults
// (planner.SiteDefaults) where the file is silent. The zero Planner (no
// file, or a file without [planner]) gives planner.SiteDefaults() itself.
func (p Planner) Options() planner.Options {
	const gbps = 1e9 / 8
	def := planner.SiteDefaults()
	o := planner.Options{
		EnergyWeight: p.EnergyWeight, TardinessWeight: p.TardinessWeight, GPUWatts: p.GPUWatts,
		TiresiasThreshold: p.TiresiasThresholdGPUHours * 3600,
		PriorityBase:      p.PriorityBase, PriorityStep: p.PriorityStep, PSComm: planner.PSComm(p.PSComm),
		WorkerBandwidthBps: p.WorkerGbps * gbps, PSBandwidthBps: p.PSGbps * gbps,
		IntraNodeBps: p.IntraNodeGbps * gbps, InterNodeBps: p.InterNodeGbps * gbps,
		ReferenceFLOPS: p.ReferenceTFLOPS * 1e12, NodeGPUs: p.NodeGPUs, MaxOptionsPerJob: p.MaxOptionsPerJob,
		DefaultDuration: p.DefaultDuration, StarvationAge: p.StarvationAge, LongJob: p.LongJob,
		StarvationStretch: p.StarvationStretch, StarvationMaxWait: p.StarvationMaxWait,
		EarlyStarvationStretch: p.EarlyStarvationStretch,
		LongJobShare:           p.LongJobShare, GPUSpeed: p.GPUSpeed, Limits: p.Limits, AndreasIterations: p.AndreasIterations,
	}
	if len(p.GPUMemoryMiB) > 0 {
		o.GPUMemoryMB = p.GPUMemoryMiB
	}
	o.BurstBufferBps, o.BurstBufferPoolBps = p.BurstBufferGbps*gbps, p.BurstBufferPoolGbps*gbps
	o.TopTier, o.SiteWeights = p.TopTier, p.SiteWeights
	o.PriorityMode = def.PriorityMode
	if p.PriorityMode != "" {
		o.PriorityMode = planner.PriorityMode(p.PriorityMode)
	}
	if _, set := p.set["nice-band"]; set {
		o.NiceBand = p.NiceBand
		if p.NiceBand == 0 {
			o.NiceBand = planner.NiceBandNone
		}
	}
	o.BindClaims = p.BindClaims || def.BindClaims && p.set["bind-claims"] == ""
	o.KeepRequest = def.KeepRequest
	if _, set := p.set["shrink"]; set {
		o.KeepRequest = !p.Shrink
	}
	o.ClaimMargin, o.ClaimFloor = p.ClaimMargin, p.ClaimFloor
	if !p.LimitsSet {
		o.Limits = def.Limits
	}
	return o
}

// PlannerOptions are the planner options of the file f (nil: no file):
// what every command plans with.
func PlannerOptions(f *File) planner.Options {
	if f == nil {
		return Planner{}.Options()
	}
	return f.Planner.Options()
}

// Settings are the [planner] keys the file set, as written (for the audit
// record and strata explain); the default caps show as limits=default.
func (p Planner) Settings() map[string]string {
	out := map[string]string{}
	for k, v := range p.set {
		out["planner."+k] = v
	}
	if !p.LimitsSet {
		out["planner.limits"] = "default (weight ≤ 1, gpus= range ≤ 2× request)"
	}
	return out
}

// Len is the number of [planner] keys the file set.
func (p Planner) Len() int { return len(p.set) }

// SettingsLine renders Settings in key order.
func SettingsLine(s map[string]string) string {
	keys := sortedKeys(s)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + s[k]
	}
	return strings.Join(parts, " ")
}
