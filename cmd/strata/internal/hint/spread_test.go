package hint

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "cmp"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/planner"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

var spreadNow = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// siteRun is one ended job of the site: the planner decided it on gpus
// GPUs of gpuType, modelled at model, and it ran real (or was stopped at
// its limit).
type siteRun struct {
	model, gpuType string
	gpus           int
	modelled, real time.Duration
	timedOut       bool
	ran            int // the GPUs it ran on (0: gpus)
}

// seedRuns writes runs into s as the collector and the planner do: a
// decision before each job's start (strata run), the job's end (strata
// collect).
func seedRuns(t *testing.T, s *db.Store, runs []siteRun) {
	t.Helper()
	ctx := context.Background()
	var jobs []planner.Job
	end := map[int64]time.Time{}
	for i, r := range runs {
		id := int64(100 + i)
		start := spreadNow.Add(-time.Duration(10+i) * 24 * time.Hour)
		c := &db.Cycle{Cluster: "c1", SnapshotID: "s", Policy: "smd", StartedAt: start.Add(-time.Minute),
			Decisions: []db.CycleDecision{{Decision: planner.Decision{JobID: id, Action: planner.ActionUpdate, Workers: r.gpus,
				Reasons: []planner.Reason{planner.ReasonWaitResources}}, Outcome: "dry-run",
				HasFacts: true, Model: r.model, GPUType: r.gpuType, ModelRun: r.modelled}}}
		if err := s.SaveCycle(ctx, c); err != nil {
			t.Fatal(err)
		}
		state := planner.JobCompleted
		if r.timedOut {
			state = "TIMEOUT"
		}
		jobs = append(jobs, planner.Job{ID: id, User: "alice", Partition: "gpu", State: state,
			SubmitTime: start.Add(-time.Hour), StartTime: start, GPUsPerJob: cmpOr(r.ran, r.gpus)})
		end[id] = start.Add(r.real)
	}
	if err := s.UpsertJobs(ctx, "c1", jobs, end); err != nil {
		t.Fatal(err)
	}
}

// TestSpreadFromTheSiteRecords (issue 32.3): hint check shows the spread of
// the site's ended runs of the model on the GPU type (90 % of them, real /
// modelled) once there are MinSiteRuns of them, read from a real Postgres;
// else the catalog's published range, else none, saying why; a time limit
// is called too short only below the fast end of the spread.
func TestSpreadFromTheSiteRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres (skipped only under -short)")
	}
	t.Parallel()
	s := dbtest.New(t)
	const m = 1000 * time.Second
	ratios := []float64{1.3, 0.9, 1.0, 1.1, 0.95, 1.2, 1.05, 0.92, 1.15, 1.4} // sorted: 0.9 … 1.4, median 1.05
	var runs []siteRun
	for i, r := range ratios {
		gpu := "a100"
		if i%3 == 0 {
			gpu = "nvidia_a100-sxm4-80gb" // Slurm's AutoDetect name: the same type
		}
		runs = append(runs, siteRun{"resnet50", gpu, 8, m, time.Duration(r * float64(m)), false, 0})
	}
	runs = append(runs,
		siteRun{"resnet50", "a100", 8, m, 3 * m, true, 0},    // stopped at its limit: not counted
		siteRun{"resnet50", "v100", 8, m, 5 * m, false, 0},   // another GPU type
		siteRun{"bert-large", "a100", 8, m, 2 * m, false, 0}, // too few runs of bert-large
		siteRun{"bert-large", "a100", 8, m, 2 * m, false, 0},
		siteRun{"bert-large", "a100", 8, m, 2 * m, false, 0},
		siteRun{"resnet50", "a100", 8, m, 9 * m, false, 4}, // ran on 4 of the 8 decided: no modelled time
	)
	seedRuns(t, s, runs)
	broken := dbtest.Open(t, strings.Replace(dbtest.URL(t), "strata_t_", "strata_gone_", 1), false)

	const rn50 = "model=resnet50 batch=256 precision=amp epochs=90 samples=1281167"
	tests := []struct {
		name      string
		gres      string
		comment   string
		records   Records
		source    string
		text      string // a substring of the spread's text
		runs      int
		low, high float64 // the spread's ratios (0: none)
	}{
		{"the site's runs", "a100-80gb:8", rn50, s, "site",
			"90 % of the 10 ended runs of resnet50 on a100 here since 2026-08-30 ran 0.90–1.40 × the modelled time (median 1.05 ×); 1 more ran into their time limit", 10, 0.9, 1.4},
		{"too few runs, no published range", "a100:8", "model=bert-large batch=32 precision=amp epochs=2 samples=88641", s, "none",
			"only 3 ended run(s) of bert-large on a100 here since 2026-08-30 (5 needed)", 3, 0, 0},
		{"no runs on this GPU type", "h100:8", rn50, s, "none", "no ended run of resnet50 on h100 here yet", 0, 0, 0},
		{"a params= job: the catalog's MFU range", "a100:4", "params=7B flops=86T batch=4 epochs=1 samples=20000", s, "catalog",
			"from the catalog's published range (MFU 21–46 % of peak, PaLM (Chowdhery et al. 2022) Table 3); the site's records are kept per catalog model", 0, 0.35 / 0.462, 0.35 / 0.213},
		{"no database", "a100:8", rn50, nil, "none", "the site's records are not read (no database", 0, 0, 0},
		{"a database that cannot be read", "a100:8", rn50, broken, "none", "the site's records could not be read (", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := checkJSON(t, tt.gres, "24:00:00", tt.comment, tt.records)
			sp := res.Spread
			if sp == nil || len(res.Runs) != 1 {
				t.Fatalf("no spread or runs: %+v", res)
			}
			if diff := cmp.Diff([]any{tt.source, tt.runs, tt.low, tt.high}, []any{sp.Source, sp.Runs, sp.LowRatio, sp.HighRatio},
				cmpopts.EquateApprox(1e-9, 0)); diff != "" {
				t.Errorf("spread (-want +got):\n%s\n%s", diff, sp.Text)
			}
			if !strings.Contains(sp.Text, tt.text) {
				t.Errorf("spread text %q lacks %q", sp.Text, tt.text)
			}
			if tt.source == "site" {
				var out strings.Builder
				script := "#SBATCH --gres=gpu:" + tt.gres + " --time=24:00:00\n#SBATCH --comment='strata: " + tt.comment + "'\n"
				if err := CheckScript(&out, ReadScript(script), Options{Now: spreadNow, Records: tt.records}); err != nil ||
					!strings.Contains(out.String(), "expected spread: "+tt.text) || !strings.Contains(out.String(), "8 GPUs 01:55:37 (01:44:0") {
					t.Errorf("text: %v\n%s", err, out.String())
				}
			}
			r := res.Runs[0]
			if tt.low > 0 && (r.LowSeconds != r.Seconds*tt.low || r.HighSeconds != r.Seconds*tt.high) {
				t.Errorf("run %+v: want %.2f–%.2f × %.0f s", r, tt.low, tt.high, r.Seconds)
			}
		})
	}
}

// TestSpreadReadsEveryPage: the records are read a page at a time (the
// query returns the oldest first); every page counts. Not parallel: it
// shrinks the page.
func TestSpreadReadsEveryPage(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres (skipped only under -short)")
	}
	s := dbtest.New(t)
	var runs []siteRun
	for range 7 {
		runs = append(runs, siteRun{"resnet50", "a100", 8, 1000 * time.Second, 1100 * time.Second, false, 0})
	}
	seedRuns(t, s, runs)
	defer func(n int) { siteLimit = n }(siteLimit)
	siteLimit = 3
	sp := checkJSON(t, "a100:8", "24:00:00", "model=resnet50 batch=256 precision=amp epochs=90 samples=1281167", s).Spread
	if sp == nil || sp.Source != "site" || sp.Runs != 7 {
		t.Errorf("spread %+v: want the site's 7 runs read in pages of 3", sp)
	}
}

// TestConfidentLimitWarnings (issue 32.3): a --time is called too short
// only below the fast end of the spread (the site's, or half the modelled
// run where none is known); inside the spread it is a note. The old check
// warned at any limit below the modelled run: 0.95 × with the site's fast
// end at 0.9, and 0.7 × with no spread known.
func TestConfidentLimitWarnings(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Postgres (skipped only under -short)")
	}
	t.Parallel()
	s := dbtest.New(t)
	var runs []siteRun
	for _, r := range []float64{0.9, 1.0, 1.0, 1.1, 1.2} {
		runs = append(runs, siteRun{"resnet50", "a100", 8, 1000 * time.Second, time.Duration(r * 1000 * float64(time.Second)), false, 0})
	}
	seedRuns(t, s, runs)
	const rn50 = "model=resnet50 batch=256 precision=amp epochs=90 samples=1281167"
	modelled := checkJSON(t, "a100:8", "24:00:00", rn50, s).Runs[0].Seconds
	tests := []struct {
		name          string
		records       Records
		limit         float64 // × the modelled run
		warned, noted bool
	}{
		{"site: below the fast end", s, 0.85, true, false},
		{"site: inside the spread, below the modelled run", s, 0.95, false, true},
		{"site: inside the spread, above the modelled run", s, 1.1, false, true},
		{"site: above the slow end", s, 1.3, false, false},
		{"none known: 0.7 × the modelled run", nil, 0.7, false, true},
		{"none known: below half", nil, 0.45, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := fmtDuration(seconds(modelled * tt.limit).Round(time.Second))
			res := checkJSON(t, "a100:8", limit, rn50, tt.records)
			warned := slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "is shorter than the modelled run") })
			noted := slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "the run may outlast it") })
			if diff := cmp.Diff([]bool{tt.warned, tt.noted}, []bool{warned, noted}); diff != "" {
				t.Errorf("--time=%s of %.0f s: [warned noted] (-want +got):\n%s\nwarnings %v notes %v", limit, modelled, diff, res.Warnings, res.Notes)
			}
		})
	}
}

func cmpOr(a, b int) int { return gocmp.Or(a, b) }

// checkJSON checks a script on gres with time limit limit and the hint
// comment, reading the spread from records, and returns --json's result.
func checkJSON(t *testing.T, gres, limit, comment string, records Records) Result {
	t.Helper()
	script := "#SBATCH --gres=gpu:" + gres + " --time=" + limit + "\n#SBATCH --comment='strata: " + comment + "'\n"
	var out strings.Builder
	o := Options{JSON: true, Now: spreadNow, Catalog: planner.DefaultCatalog(), Records: records}
	if err := CheckScript(&out, ReadScript(script), o); err != nil {
		t.Fatalf("CheckScript: %v\n%s", err, out.String())
	}
	var res Result
	if err := jsonDecode([]byte(out.String()), &res); err != nil {
		t.Fatal(err)
	}
	return res
}
