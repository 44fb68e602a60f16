package sim

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPublished(t *testing.T) {
	tr := readTraceFile(t, "testdata/tiny.csv")
	// jct_pollux of the 8 curve jobs: (700+90+1200+800+100+900+80+3000)/8.
	want := map[string]float64{"pollux": 858.8, "tiresias": 1390}
	if diff := cmp.Diff(want, Published(tr)); diff != "" {
		t.Errorf("published averages (-want +got):\n%s", diff)
	}
}

func TestWriteEvaluation(t *testing.T) {
	rep := &Report{Trace: "peers/pollux_workload9.csv", Cluster: "16x4:t4", IntervalS: 60, TraceJobs: 3,
		Published: map[string]float64{"pollux": 1000, "optimus": 2000, "tiresias": 1500},
		Results: []*Result{
			{Policy: "fifo", Jobs: 3, AvgJCT: 3000},
			{Policy: "tiresias", Jobs: 3, AvgJCT: 1700},                // 1.13: within ±15 %
			{Policy: "optimus", Jobs: 3, AvgJCT: 2400, Makespan: 5000}, // 1.20: outside
			{Policy: "smd", Jobs: 3, AvgJCT: 1200, RejectedStarts: 2},
			{Policy: "sjf", Jobs: 3, AvgJCT: 100}, // not in the summary row
		}}
	var b bytes.Buffer
	if err := WriteEvaluation(&b, []*Report{rep}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	wantRow := "| pollux_workload9 | 1000 | 2000 | 1500 | 3000 | 1700 | 2400 | 1200 | 1.13 ✓ | 1.20 ✗ | 0.80 ✓ | 1.20 |"
	if lines[2] != wantRow {
		t.Errorf("summary row\n got %s\nwant %s", lines[2], wantRow)
	}
	if !strings.Contains(b.String(), "| smd | 3 | 1200 |") || !strings.Contains(b.String(), "2 rejected-starts") {
		t.Errorf("detail table misses smd or its anomalies:\n%s", b.String())
	}
	rep.Results[3].Unfinished = 1 // a stalled run never meets a target
	b.Reset()
	if err := WriteEvaluation(&b, []*Report{rep}); err != nil || !strings.Contains(b.String(), "| 1200 ⚠ 1 unfinished | 1.13 ✓ | 1.20 ✗ | 0.80 ✗ |") {
		t.Errorf("unfinished jobs not flagged (err %v):\n%s", err, b.String())
	}
	rep.Results[3].Unfinished = 0
	b.Reset()
	if err := WriteWhatIfs(&b, []*Report{rep}); err != nil ||
		!strings.Contains(b.String(), "| pollux_workload9 | optimus | 2400 | 5000 | 1.60 | 2.40 | 0 | 0 | 0.00 | 0.0 | - |") {
		t.Errorf("what-if rows (err %v):\n%s", err, b.String())
	}
	rep.Label = "w9 what-if"
	b.Reset()
	if err := WriteEvaluation(&b, []*Report{rep}); err != nil || !strings.Contains(b.String(), "| w9 what-if |") {
		t.Errorf("label not used (err %v):\n%s", err, b.String())
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, false, 2) // not a terminal: silent during the first 5 s
	p.Func(0)(5, 10)
	p.Finish(0)
	p.Close()
	if b.Len() != 0 {
		t.Errorf("short non-terminal run printed %q", b.String())
	}
	p = NewProgress(&b, true, 2)
	p.Func(0)(5, 10)
	p.Func(1)(0, 10)
	p.Close()
	if got := b.String(); !strings.Contains(got, "\rsimulate [") || !strings.Contains(got, " 25% jobs done") {
		t.Errorf("terminal bar = %q", got)
	}
}

// stepLine averages a step function over equal bins.
func TestStepLine(t *testing.T) {
	s := []Point{{T: 0, Busy: 4}, {T: 3600, Busy: 0}, {T: 3600 * plotBins / 2, Busy: 2}, {T: 3600 * plotBins}}
	xy := stepLine(s, 3600, func(p Point) float64 { return float64(p.Busy) })
	if len(xy) != plotBins {
		t.Fatalf("%d points, want %d", len(xy), plotBins)
	}
	// Bin width is 1 h: bin 0 is all 4, bins 1..119 are 0, bins 120.. are 2.
	got := []float64{xy[0].Y, xy[1].Y, xy[plotBins/2-1].Y, xy[plotBins/2].Y, xy[plotBins-1].Y, xy[0].X}
	if diff := cmp.Diff([]float64{4, 0, 0, 2, 2, 0.5}, got); diff != "" {
		t.Errorf("bins (-want +got):\n%s", diff)
	}
	// A point exactly on a bin edge and a zero-length step must not hang.
	s = []Point{{T: 0, Busy: 1}, {T: 7, Busy: 3}, {T: 7, Busy: 1}, {T: 10 * 7}}
	_ = stepLine(s, 3600, func(p Point) float64 { return float64(p.Busy) })
}

func TestWriteSlurmEvaluation(t *testing.T) {
	res := func(p string, avg, p95, util float64, kills int) *Result {
		return &Result{Policy: p, Scheduler: SchedulerSlurm, Jobs: 10, AvgJCT: avg, P95JCT: p95, GPUUtil: util, TimeLimitKills: kills}
	}
	resubmitted := res("smd", 500, 4000, 0.8, 2)
	resubmitted.Resubmits = 2
	reps := []*Report{
		{Label: "good", Results: []*Result{res("slurm", 1000, 5000, 0.7, 0), res("smd", 500, 4000, 0.8, 0)}},
		{Label: "bad", Results: []*Result{res("slurm", 1000, 5000, 0.7, 0), res("smd", 700, 6000, 0.6, 0)}},
		{Label: "killed", Results: []*Result{res("slurm", 1000, 5000, 0.7, 0), res("smd", 500, 4000, 0.8, 2)}},
		{Label: "resubmitted", Results: []*Result{res("slurm", 1000, 5000, 0.7, 0), resubmitted}},
	}
	var b strings.Builder
	if err := WriteSlurmEvaluation(&b, reps); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| good | 1000 | – | – | – | – | 500 | 0.50 ✓ | 0.80 ✓ | 0.800 vs 0.700 ✓ |",
		"| bad | 1000 | – | – | – | – | 700 | 0.70 ✗ | 1.20 ✗ | 0.600 vs 0.700 ✗ |",
		// A report from before resubmissions: its killed jobs never finished.
		"| killed | 1000 | – | – | – | – | 500 ⚠ 2 unfinished | 0.50 ✗ |",
		// Killed jobs resubmitted and finished: counted, not unfinished.
		"| resubmitted | 1000 | – | – | – | – | 500 | 0.50 ✓ |",
		"2 killed-at-time-limit (resubmitted)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
