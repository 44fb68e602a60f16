package config

import (
	"errors"
	"fmt"
	"slices"
)

// readSiteWeights reads [planner.site-weights]: how much the site's
// fairshare, QOS and partition factors weigh in a job's weight where its
// own multifactor priority is not known (planner.Options.SiteWeights).
//
//	[planner.site-weights]
//	fairshare = 10000   # like slurm.conf's PriorityWeightFairshare: only the ratios count
//	qos = 10000
//	partition = 1000
//	protect = 0         # a job's weight × (1 + protect × its weighted site factors)
func readSiteWeights(p *Planner, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("want a table of fairshare, qos and partition weights, e.g. [planner.site-weights] fairshare = 10000")
	}
	fields := map[string]*float64{"fairshare": &p.SiteWeights.Fairshare, "qos": &p.SiteWeights.QOS,
		"partition": &p.SiteWeights.Partition, "protect": &p.SiteWeights.Protect}
	var errs []error
	for _, k := range sortedKeys(m) {
		f, known := fields[k]
		if !known {
			errs = append(errs, fmt.Errorf("%s: unknown weight (want fairshare, qos, partition or protect)", k))
			continue
		}
		x, err := positive(m[k])
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", k, err))
			continue
		}
		*f = x
	}
	return errors.Join(errs...)
}

// CheckSiteNames checks the accounts the file names ([[planner.limits]]
// account) against those Slurm knows: one it does not know is an Error
// (exit 2) naming the key and the accounts Slurm has. Limits that match
// no job would silently grant or cap nothing.
func CheckSiteNames(f *File, accounts []string) error {
	if f == nil {
		return nil
	}
	for k, l := range f.Planner.Limits {
		if l.Account != "" && !slices.Contains(accounts, l.Account) {
			return Error{Err: fmt.Errorf("planner.limits[%d].account: Slurm knows no account %q (its accounts: %v); fix the name or add the account with sacctmgr",
				k, l.Account, accounts)}
		}
	}
	return nil
}
