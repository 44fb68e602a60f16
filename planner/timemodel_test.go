package planner

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// tinyCatalog has one two-layer model profiled at batch 1 on "ref": layer
// 1 (first in forward order) 1 ms forward, 2 ms backward, 1e6 bytes;
// layer 2: 3 ms forward, 4 ms backward, 3e6 bytes.
func tinyCatalog() *Catalog {
	return NewCatalog([]LayeredModel{{Name: "tiny", ProfileBatch: 1, RefGPU: "ref",
		Layers: []LayerProfile{{1, 2, 1e6}, {3, 4, 3e6}}}}, nil)
}

func TestIterationTimeFormulas(t *testing.T) {
	// b_w = b_s = 1e9 B/s; batch 10 → compute 10×(4+6) ms = 100 ms, S = 4e6 B.
	base := Options{Catalog: tinyCatalog(), WorkerBandwidthBps: 1e9, PSBandwidthBps: 1e9, IntraNodeBps: 1e9,
		InterNodeBps: 0.5e9, NodeGPUs: 4}
	tests := []struct {
		name    string
		comment string
		comm    PSComm
		w, p    int
		want    float64 // seconds for iters=1000
	}{
		// f = max(1/bw, w/(p·bs)) = 4/2e9 = 2e-9 s/B; τ = 0.1 + 2·4e6·2e-9 = 0.116 s
		{"ps no-overlap", "strata: model=tiny batch=10 iters=1000 arch=ps ps=1-4", PSCommNoOverlap, 4, 2, 116},
		// backward order: layer 2 (a=40 ms, b=4e6) then layer 1 (a=60 ms, b=1e6); f = 2e-9:
		// T_bp = max(0.04+0.008, 0.06+0.002) = 0.062; τ = fwd 0.04 + 0.062 + pull 0.008 = 0.110 s
		{"ps overlap", "strata: model=tiny batch=10 iters=1000 arch=ps ps=1-4", PSCommOverlap, 4, 2, 110},
		// one PS per worker: f = max(1e-9, 1e-9) → no-overlap τ = 0.1 + 2·4e6·1e-9 = 0.108
		{"ps no-overlap enough servers", "strata: model=tiny batch=10 iters=1000 arch=ps ps=1-4", PSCommNoOverlap, 4, 4, 108},
		// ring inside a node (4 ≤ 4): f = 2·3/4/1e9 = 1.5e-9; τ = 0.1 + 4e6·1.5e-9 = 0.106
		{"allreduce intra-node", "strata: model=tiny batch=10 iters=1000 arch=allreduce", PSCommNoOverlap, 4, 0, 106},
		// 8 workers across nodes: f = 2·7/8/0.5e9 = 3.5e-9; τ = 0.1 + 0.014 = 0.114
		{"allreduce inter-node", "strata: model=tiny batch=10 iters=1000 arch=allreduce", PSCommNoOverlap, 8, 0, 114},
		{"single gpu", "strata: model=tiny batch=10 iters=1000 arch=single", PSCommOverlap, 1, 0, 100},
		// epochs×samples = 2×4000 samples, 4 workers × batch 10 → 200 iterations × 0.106 s
		{"epochs and samples", "strata: model=tiny batch=10 epochs=2 samples=4000 arch=allreduce", PSCommNoOverlap, 4, 0, 21.2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := base
			o.PSComm = tt.comm
			d, r, err := EstimateDuration(&Job{ID: 1, Comment: tt.comment}, tt.w, tt.p, o)
			if err != nil || r != ReasonModelled {
				t.Fatalf("EstimateDuration: %v, %v", r, err)
			}
			if got := d.Seconds(); math.Abs(got-tt.want) > 1e-6 {
				t.Errorf("duration = %.6f s, want %.6f s", got, tt.want)
			}
		})
	}
}

func TestTimeModelProperties(t *testing.T) {
	for _, model := range []string{"resnet50", "vgg16", "gnmt", "alexnet", "inception_v3"} {
		comment := fmt.Sprintf("strata: model=%s batch=64 epochs=1 samples=1000000 arch=ps ps=1-16", model)
		j := &Job{ID: 1, Comment: comment}
		for _, w := range []int{1, 2, 4, 8, 16} {
			prev := time.Duration(math.MaxInt64)
			for _, p := range []int{1, 2, 4, 8, 16} {
				over, _, _ := EstimateDuration(j, w, p, Options{PSComm: PSCommOverlap})
				no, _, _ := EstimateDuration(j, w, p, Options{PSComm: PSCommNoOverlap})
				if over > no {
					t.Errorf("%s w=%d p=%d: overlap %v slower than no-overlap %v", model, w, p, over, no)
				}
				if over > prev {
					t.Errorf("%s w=%d: %d PS slower (%v) than fewer PS (%v)", model, w, p, over, prev)
				}
				prev = over
			}
		}
		fast, _, _ := EstimateDuration(&Job{Comment: comment, GPUType: "h100"}, 4, 4, Options{GPUSpeed: map[string]float64{"h100": 2}})
		ref, _, _ := EstimateDuration(&Job{Comment: comment}, 4, 4, Options{})
		if fast >= ref {
			t.Errorf("%s: speed factor 2 gave %v, reference %v", model, fast, ref)
		}
	}
}

func TestEstimateDurationFallbacks(t *testing.T) {
	pred := PredictorFunc(func(j *Job, gpus int) (time.Duration, bool) {
		return time.Duration(j.ID) * time.Hour, j.ID > 0
	})
	tests := []struct {
		name   string
		job    Job
		o      Options
		w      int
		want   time.Duration
		reason Reason
	}{
		{"predictor", Job{ID: 2, TimeLimit: 5 * time.Hour}, Options{Predictor: pred}, 1, 2 * time.Hour, ReasonPredicted},
		{"predictor capped by time limit", Job{ID: 9, TimeLimit: 5 * time.Hour}, Options{Predictor: pred}, 1, 5 * time.Hour, ReasonPredicted},
		{"time limit", Job{ID: -1, TimeLimit: 3 * time.Hour}, Options{Predictor: pred}, 1, 3 * time.Hour, ReasonTimeLimit},
		{"default", Job{ID: -1}, Options{}, 1, time.Hour, ReasonDurationDefault},
		{"unknown model", Job{ID: 2, Comment: "strata: model=nope batch=8 iters=5"}, Options{Predictor: pred}, 1, 2 * time.Hour, ReasonModelUnknown},
		// no work amount: the time limit at the requested 1 GPU, scaled by throughput (cifar10 b2048: 1.40364/0.39446)
		{"curve without work amount", Job{ID: -1, GPUsPerJob: 1, TimeLimit: 10 * time.Hour, Comment: "strata: model=cifar10 batch=2048 gpus=1-8"},
			Options{}, 4, 10116953064318, ReasonTimeLimit}, // 10 h × 0.39446 / 1.40364
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, r, err := EstimateDuration(&tt.job, tt.w, 0, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([2]any{tt.want.Round(time.Millisecond), tt.reason}, [2]any{d.Round(time.Millisecond), r}); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if _, r, err := EstimateDuration(&Job{Comment: "strata: gpus=x"}, 1, 0, Options{}); err == nil || r != ReasonHintInvalid {
		t.Errorf("invalid hint: reason %v, error %v; want hint_invalid and an error", r, err)
	}
}

// TestEstimateDurationPollux compares the time model with the derived
// duration_s of the first Pollux workload (sim/testdata; its jobs with
// measured step times cover all 13 model, batch and GPU-count combinations
// of the six workloads).
func TestEstimateDurationPollux(t *testing.T) {
	var n int
	var worst float64
	f, err := os.Open(filepath.Join("..", "sim", "testdata", "pollux_workload1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, r := range rows[1:] {
		if r[col["duration_approx"]] != "0" {
			continue
		}
		gpus, _ := strconv.Atoi(r[col["gpus"]])
		want, _ := strconv.ParseFloat(r[col["duration_s"]], 64)
		comment := fmt.Sprintf("strata: model=%s batch=%s iters=%s gpus=1-64", r[col["model"]], r[col["batch_size"]], r[col["iterations"]])
		d, reason, err := EstimateDuration(&Job{Comment: comment}, gpus, 0, Options{})
		if err != nil || reason != ReasonModelled {
			t.Fatalf("%s: %v %v", comment, reason, err)
		}
		worst = math.Max(worst, math.Abs(d.Seconds()-want)/want)
		n++
	}
	t.Logf("%d Pollux jobs: worst relative error %.2f%%", n, 100*worst)
	if worst > 0.05 {
		t.Errorf("worst relative error %.3f > 5%%", worst)
	}
}
