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
	// Partition, Account and QOS select the jobs ("" = any).
	Partition string `json:"partition,omitempty"`
	Account   string `json:"account,omitempty"`
	QOS       string `json:"qos,omitempty"`
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

// Request is what a user asks of the site's limits: the job's partition
// and account, the GPUs it requested from Slurm (Req; ReqKnown false when
// not known, as for a hint checked without its script), whether its GPU
// count is fixed (no range the planner may choose in), the hint's gpus=
// range and weight.
type Request struct {
	Partition, Account string
	QOS                string // "" (not known): limits of a QOS do not match
	Req                int
	ReqKnown           bool
	Fixed              bool
	GPUMin, GPUMax     int
	Weight             float64
}

// Capped is a request after the site's limits: the range and weight the
// planner uses, and one note per cap that applied (the decision's detail,
// `strata hint check`'s site caps).
type Capped struct {
	GPUMin, GPUMax int
	Weight         float64
	Notes          []string
}

// CapRequest applies the limits that match r (Limit): the whole gpus=
// range is capped at the strictest MaxGPUs and MaxRangeFactor × Req,
// minimum included, and the weight at the largest MaxWeight granted (1 when
// none grants more). With no limits at all (nil: the simulator, tests)
// nothing is capped. It is the one rule the planner and `strata hint
// check` share.
func CapRequest(limits []Limit, r Request) Capped {
	c := Capped{GPUMin: r.GPUMin, GPUMax: r.GPUMax, Weight: r.Weight}
	if len(limits) == 0 {
		return c
	}
	part, _, _ := strings.Cut(r.Partition, ",")
	grant, grantScope := 0.0, ""
	for _, l := range limits {
		if (l.Partition != "" && l.Partition != part) || (l.Account != "" && l.Account != r.Account) ||
			(l.QOS != "" && l.QOS != r.QOS) {
			continue
		}
		scope := limitScope(l)
		if l.MaxWeight > grant {
			grant, grantScope = l.MaxWeight, scope
		}
		if r.Fixed {
			continue
		}
		top := math.MaxInt
		if l.MaxGPUs > 0 {
			top = l.MaxGPUs
		}
		if l.MaxRangeFactor > 0 {
			if r.ReqKnown {
				top = min(top, int(math.Ceil(l.MaxRangeFactor*float64(max(1, r.Req))-1e-9)))
			} else {
				c.Notes = append(c.Notes, fmt.Sprintf("the gpus= range reaches at most %g× the job's --gres/--gpus request (%s)", l.MaxRangeFactor, scope))
			}
		}
		if c.GPUMax > top { // the whole range, minimum included
			was := gpuRange(c.GPUMin, c.GPUMax)
			c.GPUMin, c.GPUMax = min(c.GPUMin, top), top
			c.Notes = append(c.Notes, fmt.Sprintf("gpus=%s capped to %s (%s)", was, gpuRange(c.GPUMin, c.GPUMax), scope))
		}
	}
	if grant == 0 {
		grant, grantScope = 1, "no weight granted to this account or partition"
	}
	if c.Weight > grant {
		c.Notes = append(c.Notes, fmt.Sprintf("weight %g capped to %g (%s)", c.Weight, grant, grantScope))
		c.Weight = grant
	}
	return c
}

// applyLimits caps the job's weight and GPU range by the matching limits
// (CapRequest) and says which caps applied (for the decision's reasons and
// detail).
func applyLimits(ji *jobInfo, limits []Limit) {
	c := CapRequest(limits, Request{Partition: ji.job.Partition, Account: ji.job.Account, QOS: ji.job.QOS, Req: ji.req, ReqKnown: true,
		Fixed: ji.fixed, GPUMin: ji.gmin, GPUMax: ji.gmax, Weight: ji.weight})
	ji.gmin, ji.gmax, ji.weight = c.GPUMin, c.GPUMax, c.Weight
	if len(c.Notes) > 0 {
		ji.capped = strings.Join(c.Notes, "; ")
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
	var parts []string
	for _, kv := range [][2]string{{"partition", l.Partition}, {"account", l.Account}, {"QOS", l.QOS}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+" "+kv[1])
		}
	}
	if len(parts) == 0 {
		return "site limit"
	}
	return "limit of " + strings.Join(parts, ", ")
}
