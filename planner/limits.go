package planner

import (
	"fmt"
	"math"
	"strings"
)

// Limit caps what a job's user may ask for in the hint, for the jobs of a
// partition and/or an account (set by admins; users cannot raise them).
// Every limit that matches a job applies: for the GPU range the strictest
// cap wins; weight is a grant (MaxWeight).
type Limit struct {
	// Partition and Account select the jobs ("" = any).
	Partition string `json:"partition,omitempty"`
	Account   string `json:"account,omitempty"`
	// MaxWeight grants the hint's weight= up to this value. A weight above
	// 1 needs a grant: once any limit is configured, a job's weight is
	// capped at the largest MaxWeight among the limits that match it, or
	// at 1 when none of them sets one (0 = no grant).
	MaxWeight float64 `json:"max_weight,omitempty"`
	// MaxGPUs caps the whole hint's gpus= range, minimum included (0 = no
	// cap).
	MaxGPUs int `json:"max_gpus,omitempty"`
	// MaxRangeFactor caps the gpus= range (minimum included) at
	// ceil(factor × the GPUs the job requested from Slurm) (0 = no cap):
	// 1 means "never more than asked for".
	MaxRangeFactor float64 `json:"max_range_factor,omitempty"`
}

// matches reports whether the limit selects job j.
func (l Limit) matches(j *Job) bool {
	part, _, _ := strings.Cut(j.Partition, ",")
	return (l.Partition == "" || l.Partition == part) && (l.Account == "" || l.Account == j.Account)
}

// validate names the first invalid field of limit k.
func (l Limit) validate(k int) error {
	if l.MaxWeight < 0 || l.MaxGPUs < 0 || l.MaxRangeFactor < 0 ||
		math.IsNaN(l.MaxWeight) || math.IsNaN(l.MaxRangeFactor) {
		return fmt.Errorf("limit %d (partition %q, account %q): max weight, max GPUs and max range factor must be ≥ 0", k+1, l.Partition, l.Account)
	}
	return nil
}

// DefaultLimits are the caps a site gets unless it configures its own: a
// gpus= range reaching at most twice the request, and no weight grant
// (weight= is capped at 1).
func DefaultLimits() []Limit {
	return []Limit{{MaxRangeFactor: 2}}
}

// applyLimits caps the job's weight and GPU range by the matching limits
// and says which caps applied (for the decision's reasons and detail).
// With no limits at all (nil: the simulator, tests) nothing is capped.
func applyLimits(ji *jobInfo, limits []Limit) {
	if len(limits) == 0 {
		return
	}
	var notes []string
	grant, grantScope := 0.0, ""
	for _, l := range limits {
		if !l.matches(ji.job) {
			continue
		}
		scope := limitScope(l)
		if l.MaxWeight > grant {
			grant, grantScope = l.MaxWeight, scope
		}
		if ji.fixed {
			continue
		}
		top := math.MaxInt
		if l.MaxGPUs > 0 {
			top = l.MaxGPUs
		}
		if l.MaxRangeFactor > 0 {
			top = min(top, int(math.Ceil(l.MaxRangeFactor*float64(max(1, ji.req))-1e-9)))
		}
		if ji.gmax > top {
			was := gpuRange(ji.gmin, ji.gmax)
			ji.gmin, ji.gmax = min(ji.gmin, top), top
			notes = append(notes, fmt.Sprintf("gpus=%s capped to %s (%s)", was, gpuRange(ji.gmin, ji.gmax), scope))
		}
	}
	if grant == 0 {
		grant, grantScope = 1, "no weight granted to this account or partition"
	}
	if ji.weight > grant {
		notes = append(notes, fmt.Sprintf("weight %g capped to %g (%s)", ji.weight, grant, grantScope))
		ji.weight = grant
	}
	if len(notes) > 0 {
		ji.capped = strings.Join(notes, "; ")
	}
}

// gpuRange writes a gpus= range as the hint does ("4" or "2-8").
func gpuRange(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

func limitScope(l Limit) string {
	switch {
	case l.Partition != "" && l.Account != "":
		return "limit of partition " + l.Partition + ", account " + l.Account
	case l.Partition != "":
		return "limit of partition " + l.Partition
	case l.Account != "":
		return "limit of account " + l.Account
	}
	return "site limit"
}
