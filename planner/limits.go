package planner

import (
	"fmt"
	"math"
	"strings"
)

// Limit caps what a job's user may ask for in the hint, for the jobs of a
// partition and/or an account (set by admins; users cannot raise them).
// Every limit that matches a job applies, and the strictest cap wins.
type Limit struct {
	// Partition and Account select the jobs ("" = any).
	Partition string `json:"partition,omitempty"`
	Account   string `json:"account,omitempty"`
	// MaxWeight caps the hint's weight= (0 = no cap).
	MaxWeight float64 `json:"max_weight,omitempty"`
	// MaxGPUs caps the top of the hint's gpus= range (0 = no cap).
	MaxGPUs int `json:"max_gpus,omitempty"`
	// MaxRangeFactor caps the top of the gpus= range at
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

// DefaultLimits are the caps a site gets unless it configures its own:
// weights up to 10, and a gpus= range reaching at most twice the request.
func DefaultLimits() []Limit {
	return []Limit{{MaxWeight: 10, MaxRangeFactor: 2}}
}

// applyLimits caps the job's weight and GPU range by the matching limits
// and says which caps applied (for the decision's reasons and detail).
func applyLimits(ji *jobInfo, limits []Limit) {
	var notes []string
	for _, l := range limits {
		if !l.matches(ji.job) {
			continue
		}
		scope := limitScope(l)
		if l.MaxWeight > 0 && ji.weight > l.MaxWeight {
			notes = append(notes, fmt.Sprintf("weight %g capped to %g (%s)", ji.weight, l.MaxWeight, scope))
			ji.weight = l.MaxWeight
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
			notes = append(notes, fmt.Sprintf("gpus range top %d capped to %d (%s)", ji.gmax, max(top, ji.gmin), scope))
			ji.gmax = max(top, ji.gmin)
		}
	}
	if len(notes) > 0 {
		ji.capped = strings.Join(notes, "; ")
	}
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
