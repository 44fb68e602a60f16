package planner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// In the nice mode a job the site ranks ahead of every job ranked before it
// in its island by more than 2·band is never held back with a begin time:
// slurmctld would start it first whatever nice Strata wrote. Other islands,
// unknown site priorities and the absolute mode are not affected.
func TestSiteOutranksStopsDeferrals(t *testing.T) {
	a, b := &island{}, &island{}
	pl := func(isl *island, site int64) *planned {
		return &planned{ji: &jobInfo{isl: isl, job: &Job{State: JobPending, SitePriority: site}}}
	}
	for _, tc := range []struct {
		name string
		o    Options
		seq  []*planned
		want []bool
	}{
		{"nice, band 1000", Options{PriorityMode: PriorityNice, NiceBand: 1000},
			[]*planned{pl(a, 5000), pl(a, 6500), pl(a, 8501), pl(b, 20000), pl(a, 0), pl(a, 10502)},
			[]bool{false, false, true, false, false, true}},
		{"nice, band 0: any higher site priority", Options{PriorityMode: PriorityNice, NiceBand: NiceBandNone},
			[]*planned{pl(a, 5000), pl(a, 5000), pl(a, 5001)}, []bool{false, false, true}},
		{"absolute: never", Options{PriorityMode: PriorityAbsolute},
			[]*planned{pl(a, 5000), pl(a, 50000)}, []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &cycle{o: &tc.o, siteMax: 50000}
			ahead := map[*island]int64{}
			var got []bool
			for _, p := range tc.seq {
				got = append(got, c.siteOutranks(ahead, p))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
