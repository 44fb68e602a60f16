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

// CheckSiteNames checks the accounts and QOS the file names
// ([[planner.limits]] account and qos) against those Slurm knows: one it
// does not know is an Error (exit 2) naming the key and what Slurm has.
// A limit on a name no job carries would silently grant or cap nothing.
func CheckSiteNames(f *File, accounts, qos []string) error {
	if f == nil {
		return nil
	}
	for k, l := range f.Planner.Limits {
		for _, c := range []struct {
			key, name, kind string
			known           []string
		}{
			{"account", l.Account, "account", accounts}, {"qos", l.QOS, "QOS", qos},
		} {
			if c.name != "" && !slices.Contains(c.known, c.name) {
				return Error{Err: fmt.Errorf("planner.limits[%d].%s: Slurm knows no %s %q (it has %v); fix the name or add it with sacctmgr",
					k, c.key, c.kind, c.name, c.known)}
			}
		}
	}
	return nil
}
