package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func runStrata(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := newApp(&out, &errb).RunContext(context.Background(), append([]string{"strata"}, args...))
	return out.String(), errb.String(), err
}

const simTiny = "../../sim/testdata/tiny.csv"

func TestSimulateJSON(t *testing.T) {
	args := []string{"simulate", "--trace", simTiny, "--scaling", "../../sim/testdata/tiny_scaling.csv",
		"--cluster", "4x4:t4", "--policy", "fifo,smd", "--json"}
	out, _, err := runStrata(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results []map[string]any `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	var policies []string
	for _, r := range doc.Results {
		policies = append(policies, r["policy"].(string))
		for _, k := range []string{"jobs", "avg_jct_s", "p50_jct_s", "p95_jct_s", "p99_jct_s", "avg_queue_s",
			"makespan_s", "gpu_util", "energy_kwh"} {
			if _, ok := r[k].(float64); !ok {
				t.Errorf("%v: key %s missing or not a number", r["policy"], k)
			}
		}
		if r["jobs"].(float64) != 10 {
			t.Errorf("%v: jobs = %v, want 10", r["policy"], r["jobs"])
		}
	}
	if diff := cmp.Diff([]string{"fifo", "smd"}, policies); diff != "" {
		t.Errorf("policies (-want +got):\n%s", diff)
	}
	again, _, err := runStrata(t, args...)
	if err != nil || again != out {
		t.Errorf("same inputs, different output (err %v)", err)
	}
}

func TestSimulateTableAndPlots(t *testing.T) {
	dir := t.TempDir()
	out, _, err := runStrata(t, "simulate", "--trace", simTiny, "--cluster", "4x4:t4", "--policy", "fifo", "--plot", dir)
	if err != nil {
		t.Fatal(err)
	}
	// JCTs in the table are human durations (issue 17); --json keeps seconds.
	if !strings.Contains(out, "avg JCT") || strings.Contains(out, "avg JCT s") || !strings.Contains(out, "fifo") ||
		!regexp.MustCompile(`fifo +\d+ +\d+m\d\ds `).MatchString(out) {
		t.Errorf("table output:\n%s", out)
	}
	// --jobs adds per-job rows to the JSON only.
	if _, _, err := runStrata(t, "simulate", "--trace", simTiny, "--cluster", "4x4:t4", "--policy", "fifo", "--jobs"); exitCodeOf(err) != 2 {
		t.Errorf("--jobs without --json: %v, want exit status 2", err)
	}
	js, _, err := runStrata(t, "simulate", "--trace", simTiny, "--cluster", "4x4:t4", "--policy", "fifo", "--json", "--jobs")
	if err != nil || !strings.Contains(js, `"job_rows": [`) || !strings.Contains(js, `"start_gpus": `) {
		t.Errorf("--json --jobs: %v\n%.2000s", err, js)
	}
	for _, f := range []string{"jct_cdf.svg", "gpu_util.svg", "queue.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("%s: not an SVG (%v)", f, err)
		}
	}
}

func TestSimulateBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(bad, []byte("job_id,submit_time,duration_s,gpus\n1,0,10,1\n2,0,oops,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"bad row", []string{"--trace", bad, "--cluster", "1x1", "--policy", "fifo"}, "line 3: column duration_s"},
		{"bad cluster", []string{"--trace", bad, "--cluster", "4by4", "--policy", "fifo"}, "want NODESxGPUS"},
		{"unknown policy", []string{"--trace", bad, "--cluster", "1x1", "--policy", "fifo,nope"}, `--policy "nope"`},
		{"missing trace", []string{"--cluster", "1x1", "--policy", "fifo"}, "needs --trace"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runStrata(t, append([]string{"simulate"}, tc.args...)...)
			var ec exitCoder
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &ec) || ec.ExitCode() != 2 {
				t.Errorf("err = %v, want exit status 2 and %q", err, tc.wantErr)
			}
		})
	}
	out, _, err := runStrata(t, "simulate", "--trace", bad, "--cluster", "1x1", "--policy", "fifo", "--skip-bad", "--json")
	if err != nil || !strings.Contains(out, `"skipped_rows": 1`) || !strings.Contains(out, `"jobs": 1`) {
		t.Errorf("--skip-bad: err %v, output:\n%s", err, out)
	}
}

// TestSimulateUsesThePlannerSection: simulate reads the same [planner]
// section as run and plan (here a cap of 1 GPU per job changes SMD's run).
func TestSimulateUsesThePlannerSection(t *testing.T) {
	args := []string{"simulate", "--trace", simTiny, "--scaling", "../../sim/testdata/tiny_scaling.csv",
		"--cluster", "4x4:t4", "--policy", "smd", "--gpu-range", "2", "--json"}
	avg := func(extra ...string) float64 {
		out, _, err := runStrata(t, append(extra, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Results []struct {
				Avg float64 `json:"avg_jct_s"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) != 1 {
			t.Fatalf("bad JSON (%v): %s", err, out)
		}
		return doc.Results[0].Avg
	}
	cfg := filepath.Join(t.TempDir(), "strata.toml")
	if err := os.WriteFile(cfg, []byte("[planner]\n[[planner.limits]]\nmax-gpus = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if free, capped := avg(), avg("--config", cfg); free == capped {
		t.Errorf("average JCT %v with and without a 1-GPU cap: the [planner] section is not used", free)
	}
}
