package sim

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

func readScalingFile(t *testing.T, path string) *Scaling {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ReadScaling(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestReadTrace(t *testing.T) {
	const header = "job_id,submit_time,duration_s,gpus,model,batch_size,nodes,user,job_name,color,jct_pollux\n"
	tests := []struct {
		name     string
		in       string
		skipBad  bool
		wantJobs []TraceJob
		wantSkip int
		wantCPU  int
		wantErr  string
		wantLine int
	}{{
		name: "columns, unknown ignored, sorted by submit",
		in:   header + "7,50,100.5,4,CIFAR10,2048,1,alice,train,red,700\n3,10,20,1,,,,,,blue,\n",
		wantJobs: []TraceJob{
			{ID: "3", Submit: 10, Duration: 20, GPUs: 1},
			{ID: "7", Submit: 50, Duration: 100.5, GPUs: 4, Model: "cifar10", BatchSize: 2048, Nodes: 1,
				User: "alice", Name: "train", Published: map[string]float64{"pollux": 700}},
		},
	}, {
		name:     "cpu-only rows counted, not simulated",
		in:       "job_id,submit_time,duration_s,gpus\n1,0,10,0\n2,0,10,2\n",
		wantJobs: []TraceJob{{ID: "2", Duration: 10, GPUs: 2}},
		wantCPU:  1,
	}, {
		name:    "bad number names line and column",
		in:      "job_id,submit_time,duration_s,gpus\n1,0,10,2\n2,0,ten,2\n",
		wantErr: "line 3: column duration_s", wantLine: 3,
	}, {
		name:    "negative gpus",
		in:      "job_id,submit_time,duration_s,gpus\n1,0,10,-2\n",
		wantErr: "line 2: column gpus", wantLine: 2,
	}, {
		name:    "fractional gpus",
		in:      "job_id,submit_time,duration_s,gpus\n1,0,10,1.5\n",
		wantErr: "line 2: column gpus: want a whole number", wantLine: 2,
	}, {
		name:    "short row",
		in:      "job_id,submit_time,duration_s,gpus\n1,0,10\n",
		wantErr: "line 2: 3 fields, header has 4", wantLine: 2,
	}, {
		name:     "skip bad rows with a count",
		in:       "job_id,submit_time,duration_s,gpus\n1,0,10,2\n2,0,ten,2\n3,x,1,1\n4,5,5,1\n",
		skipBad:  true,
		wantJobs: []TraceJob{{ID: "1", Duration: 10, GPUs: 2}, {ID: "4", Submit: 5, Duration: 5, GPUs: 1}},
		wantSkip: 2,
	}, {
		name:    "missing required column",
		in:      "job_id,submit_time,gpus\n1,0,1\n",
		wantErr: `missing column "duration_s"`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ReadTrace(strings.NewReader(tc.in), ReadOptions{SkipBad: tc.skipBad})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want it to contain %q", err, tc.wantErr)
				}
				var le *LineError
				if tc.wantLine > 0 && (!errors.As(err, &le) || le.Line != tc.wantLine) {
					t.Errorf("error %v: want a LineError for line %d", err, tc.wantLine)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantJobs, tr.Jobs); diff != "" {
				t.Errorf("jobs (-want +got):\n%s", diff)
			}
			if tr.Skipped != tc.wantSkip || tr.CPUOnly != tc.wantCPU {
				t.Errorf("skipped, cpu-only = %d, %d; want %d, %d", tr.Skipped, tr.CPUOnly, tc.wantSkip, tc.wantCPU)
			}
		})
	}
}

func TestScalingDuration(t *testing.T) {
	s := readScalingFile(t, "testdata/tiny_scaling.csv")
	tests := []struct {
		model  string
		batch  int
		gpus   int
		want   float64
		wantOK bool
	}{
		{"cifar10", 2048, 6, 940, true},
		{"cifar10", 2048, 5, (1353 + 940) / 2.0, true}, // between 4 and 6
		{"cifar10", 2048, 10, (895 + 673) / 2.0, true}, // between 8 and 12
		{"cifar10", 2048, 128, 941, true},              // beyond 64: no faster than at 64
		{"cifar10", 2048, 0, 0, false},
		{"cifar10", 512, 4, 0, false}, // no curve for this batch
		{"ncf", 32768, 8, 101, true},  // non-monotone, as measured
	}
	for _, tc := range tests {
		got, ok := s.Duration(tc.model, tc.batch, tc.gpus)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("Duration(%s, %d, %d) = %v, %v; want %v, %v", tc.model, tc.batch, tc.gpus, got, ok, tc.want, tc.wantOK)
		}
	}
	if _, err := ReadScaling(strings.NewReader("model,batch_size,gpus,duration_s\nx,1,2,3\nx,1,two,3\n")); err == nil ||
		!strings.Contains(err.Error(), "line 3: column gpus") {
		t.Errorf("bad scaling row error = %v, want line 3 column gpus", err)
	}
}

func TestTruthDuration(t *testing.T) {
	sc := readScalingFile(t, "testdata/tiny_scaling.csv")
	curve := TraceJob{Duration: 1880, GPUs: 6, Model: "cifar10", BatchSize: 2048} // twice the curve
	plain := TraceJob{Duration: 600, GPUs: 4}
	tests := []struct {
		name       string
		j          TraceJob
		w          int
		want       float64
		wantLinear bool
	}{
		{"requested count is the trace value", curve, 6, 1880, false},
		{"curve ratio keeps the trace's scale", curve, 4, 2 * 1353, false},
		{"no curve, requested", plain, 4, 600, false},
		{"no curve, other count: linear and flagged", plain, 2, 1200, true},
	}
	for _, tc := range tests {
		got, linear := Truth{Scaling: sc}.Duration(&tc.j, tc.w)
		if got != tc.want || linear != tc.wantLinear {
			t.Errorf("%s: got %v, %v; want %v, %v", tc.name, got, linear, tc.want, tc.wantLinear)
		}
	}
}

func TestHintRange(t *testing.T) {
	sc := readScalingFile(t, "testdata/tiny_scaling.csv")
	j := TraceJob{Duration: 940, GPUs: 6, Model: "cifar10", BatchSize: 2048, Iterations: 3338}
	tests := []struct {
		factor float64
		gpus   int
		want   string
	}{
		{1, 64, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-6"},
		{2, 64, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-12"},
		{2, 8, "strata: model=cifar10 batch=2048 iters=3338 gpus=1-8"}, // capped by the cluster
	}
	for _, tc := range tests {
		if got := (HintRange{MaxFactor: tc.factor}).comment(Truth{Scaling: sc}, &j, tc.gpus); got != tc.want {
			t.Errorf("factor %v on %d GPUs: %q, want %q", tc.factor, tc.gpus, got, tc.want)
		}
	}
	if got := (HintRange{}).comment(Truth{}, &j, 64); got != "" {
		t.Errorf("without curves the hint must be empty (fixed GPUs), got %q", got)
	}
}

// ModelTruth scales catalog models by the planner's time model, anchored
// at the trace's duration; unknown models stay fixed-size (linear, flagged).
func TestModelTruth(t *testing.T) {
	tr := NewModelTruth(nil, 4)
	j := TraceJob{Duration: 1000, GPUs: 4, Model: "resnet50", BatchSize: 64, Iterations: 5000}
	req, _, err := planner.EstimateDuration(&planner.Job{ID: 1, GPUsPerJob: 4, Nodes: 1,
		Comment: "strata: model=resnet50 batch=64 epochs=1 samples=1280000"}, 4, 0, planner.Options{NodeGPUs: 4})
	if err != nil {
		t.Fatal(err)
	}
	two, _, _ := planner.EstimateDuration(&planner.Job{ID: 1, GPUsPerJob: 4, Nodes: 1,
		Comment: "strata: model=resnet50 batch=64 epochs=1 samples=1280000"}, 2, 0, planner.Options{NodeGPUs: 4})
	tests := []struct {
		name       string
		j          TraceJob
		w          int
		want       float64
		wantLinear bool
	}{
		{"requested count is the trace value", j, 4, 1000, false},
		{"other counts follow the time model", j, 2, 1000 * two.Seconds() / req.Seconds(), false},
		{"unknown model: linear and flagged", TraceJob{Duration: 1000, GPUs: 4, Model: "gpt2", BatchSize: 64, Iterations: 5000}, 2, 2000, true},
	}
	for _, tc := range tests {
		got, linear := tr.Duration(&tc.j, tc.w)
		if math.Abs(got-tc.want) > 1e-6 || linear != tc.wantLinear {
			t.Errorf("%s: got %v, %v; want %v, %v", tc.name, got, linear, tc.want, tc.wantLinear)
		}
	}
	if !tr.Elastic(&j) || (Truth{}).Elastic(&j) {
		t.Errorf("resnet50 must be elastic with ModelTruth only")
	}
	want := "strata: model=resnet50 batch=64 epochs=1 samples=1280000 gpus=1-4"
	if got := (HintRange{}).comment(tr, &j, 64); got != want {
		t.Errorf("hint %q, want %q", got, want)
	}
	if two <= req {
		t.Errorf("time model: 2 GPUs (%v) not slower than 4 (%v)", two, req)
	}
}

// Times no job can have are errors naming the line and column (1e300 used
// to make the simulation run for ever).
func TestReadTraceRefusesAbsurdTimes(t *testing.T) {
	for col, row := range map[string]string{
		"submit_time":  "1,1e300,60,1,",
		"duration_s":   "1,0,1e300,1,",
		"time_limit_s": "1,0,60,1,1e12",
	} {
		_, err := ReadTrace(strings.NewReader("job_id,submit_time,duration_s,gpus,time_limit_s\n"+row+"\n"), ReadOptions{})
		if err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), col) {
			t.Errorf("%s: err = %v, want an error naming line 2 and the column", col, err)
		}
	}
}
