package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// Partition tiers and job factors in Slurm mode (issue 31). slurmctld
// queues jobs by their partition's PriorityTier first and by priority
// within a tier (sort_job_queue2 in job_scheduler.c); PriorityJobFactor
// over the largest of all partitions is the multifactor priority's
// partition factor, weighed by PriorityWeightPartition. A job listing
// several partitions is modelled with the best of them (slurmctld queues
// one entry per partition).

// PartPriority is one partition's PriorityTier and PriorityJobFactor.
type PartPriority struct {
	Tier      int
	JobFactor float64
}

// ParsePartitionPriority reads "NAME=TIER[/JOBFACTOR],..." (strata
// simulate --partition-priority); a missing job factor is 1.
func ParsePartitionPriority(v string) (map[string]PartPriority, error) {
	out := map[string]PartPriority{}
	if strings.TrimSpace(v) == "" {
		return out, nil
	}
	for _, item := range strings.Split(v, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("partition priority %q: want NAME=TIER[/JOBFACTOR], e.g. gpu=2/1000", item)
		}
		tierS, factorS, hasFactor := strings.Cut(val, "/")
		tier, err := strconv.Atoi(tierS)
		if err != nil || tier < 0 {
			return nil, fmt.Errorf("partition priority %q: the tier must be a whole number ≥ 0", item)
		}
		p := PartPriority{Tier: tier, JobFactor: 1}
		if hasFactor {
			f, err := strconv.ParseFloat(factorS, 64)
			if err != nil || f < 0 || f != f {
				return nil, fmt.Errorf("partition priority %q: the job factor must be a number ≥ 0", item)
			}
			p.JobFactor = f
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("partition priority: %s given twice", name)
		}
		out[name] = p
	}
	return out, nil
}

// partPriority is the tier and the normalized partition factor of a job:
// the best of its partitions' (0, 0 without --partition-priority).
func (e *engine) partPriority(j *job) (tier int, factor float64) {
	if e.cfg.Slurm.PartitionPriority == "" {
		return 0, 0
	}
	if e.partPrio == nil {
		e.partPrio, _ = ParsePartitionPriority(e.cfg.Slurm.PartitionPriority) // checked by Validate
	}
	pp := e.partPrio
	var most float64
	for _, p := range pp {
		most = max(most, p.JobFactor)
	}
	for _, name := range strings.Split(j.pj.Partition, ",") {
		if p, ok := pp[name]; ok {
			tier = max(tier, p.Tier)
			if most > 0 {
				factor = max(factor, p.JobFactor/most)
			}
		}
	}
	return tier, factor
}
