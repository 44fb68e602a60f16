package planner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// In the nice mode a ranked job that Slurm will put ahead of every job
// ranked before it in its island (its site priority less the nice of its
// rank is the highest) is never held back with a begin time. Other
// islands, unknown site priorities and the absolute mode are not affected.
func TestSiteOutranksStopsDeferrals(t *testing.T) {
	a, b := &island{}, &island{}
	pl := func(isl *island, rank int, site int64) *planned {
		return &planned{rank: rank, ji: &jobInfo{isl: isl, job: &Job{State: JobPending, SitePriority: site}}}
	}
	for _, tc := range []struct {
		name string
		o    Options
		seq  []*planned
		want []bool
	}{
		// n = 5: nices −1000, −500, 0, 500, 1000; Slurm's priorities 6000, 6500, 6000, 20000 (island b), unknown.
		{"nice, band 1000", Options{PriorityMode: PriorityNice, NiceBand: 1000},
			[]*planned{pl(a, 1, 5000), pl(a, 2, 6000), pl(a, 3, 6000), pl(b, 4, 20500), pl(a, 5, 0)},
			[]bool{false, true, false, false, false}},
		{"nice, band 1000, far ahead", Options{PriorityMode: PriorityNice, NiceBand: 1000},
			[]*planned{pl(a, 1, 5000), pl(a, 5, 8001)}, []bool{false, true}},
		{"nice, band 0: any higher site priority", Options{PriorityMode: PriorityNice, NiceBand: NiceBandNone},
			[]*planned{pl(a, 1, 5000), pl(a, 2, 5000), pl(a, 3, 5001)}, []bool{false, false, true}},
		{"absolute: never", Options{PriorityMode: PriorityAbsolute},
			[]*planned{pl(a, 1, 5000), pl(a, 2, 50000)}, []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &cycle{o: &tc.o, siteMax: 50000}
			ahead := map[*island]int64{}
			var got []bool
			for _, p := range tc.seq {
				got = append(got, c.siteOutranks(ahead, p, 5))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
