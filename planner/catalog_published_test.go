package planner

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPublishedRowsHaveSources: a published row without its source (or
// naming a GPU, precision or model the catalog does not know) fails.
func TestPublishedRowsHaveSources(t *testing.T) {
	c := DefaultCatalog()
	for _, r := range publishedThroughputs {
		name := fmt.Sprintf("%s/%s/%s/%d", r.Model, r.GPU, r.Precision, r.GPUs)
		if strings.TrimSpace(r.Source) == "" || strings.Contains(r.Source, "%!") {
			t.Errorf("%s: no source", name)
		}
		g, ok := LookupGPU(r.GPU)
		if !ok || g.Name != r.GPU || g.Effective(r.Precision) != r.Precision {
			t.Errorf("%s: GPU %q does not run %s", name, r.GPU, r.Precision)
		}
		if !c.Has(r.Model) || r.GPUs < 1 || r.SamplesPerSec <= 0 || r.Batch < 0 {
			t.Errorf("%s: unknown model or empty row", name)
		}
	}
	for _, g := range gpuSpecs {
		if g.Source == "" || g.FP32 <= 0 || g.AMP <= 0 {
			t.Errorf("GPU %s: no source or no peak", g.Name)
		}
	}
	for _, mi := range sizedModels {
		if mi.Basis == "" || mi.Params <= 0 || mi.FLOPs <= 0 || mi.Family == "" {
			t.Errorf("model %s: no basis", mi.Name)
		}
	}
}

func TestLookupGPU(t *testing.T) {
	tests := []struct {
		gres, want string
		ok         bool
	}{
		{"a100", "a100", true}, {"A100", "a100", true}, {"a100-80gb", "a100", true},
		{"nvidia_a100-sxm4-80gb", "a100", true}, {"H100", "h100", true}, {"h200", "h200", true},
		{"l40s", "l40s", true}, {"l40", "", false}, {"tesla_t4", "t4", true}, {"mi300x", "mi300x", true},
		{"a10", "a10", true}, {"", "", false}, {"big", "", false},
	}
	for _, tt := range tests {
		g, ok := LookupGPU(tt.gres)
		if ok != tt.ok || g.Name != tt.want {
			t.Errorf("LookupGPU(%q) = %q, %t; want %q, %t", tt.gres, g.Name, ok, tt.want, tt.ok)
		}
	}
}

// TestPublishedTargets (issue 32): a job timed on a GPU type Strata knows
// without configuration lands within 1.35× of the published throughput.
// The 8-GPU rows calibrate the model; the 1-GPU rows are held out.
func TestPublishedTargets(t *testing.T) {
	const imagenet = "epochs=90 samples=1281167"
	tests := []struct {
		name      string
		comment   string
		gpuType   string
		gpus      int
		published float64 // samples/s
		samples   float64
	}{
		{"resnet50 8×A100 amp", "model=resnet50 batch=256 precision=amp " + imagenet, "a100", 8, 16621, 90 * 1281167},
		{"resnet50 8×A100 tf32", "model=resnet50 batch=256 precision=tf32 " + imagenet, "a100", 8, 7248, 90 * 1281167},
		{"resnet50 8×V100 fp32", "model=resnet50 batch=256 precision=fp32 " + imagenet, "v100", 8, 2855, 90 * 1281167},
		{"resnet50 8×A100 default precision is amp", "model=resnet50 batch=256 " + imagenet, "a100-80gb", 8, 16621, 90 * 1281167},
		{"resnet50 1×A100 amp (held out)", "model=resnet50 batch=256 precision=amp " + imagenet, "a100", 1, 2470, 90 * 1281167},
		{"resnet50 1×V100 fp32 (held out)", "model=resnet50 batch=256 precision=fp32 " + imagenet, "v100", 1, 367, 90 * 1281167},
		{"bert-large SQuAD 8×A100 amp", "model=bert-large batch=32 precision=amp epochs=2 samples=88641", "a100", 8, 846.7, 2 * 88641},
		{"bert-large SQuAD 1×A100 tf32 (held out)", "model=bert-large batch=32 precision=tf32 epochs=2 samples=88641", "a100", 1, 61.5, 2 * 88641},
		{"bert-large SQuAD 8×V100 amp", "model=bert-large batch=16 precision=fp16 epochs=2 samples=88641", "v100", 8, 382, 2 * 88641},
		{"efficientnet-b4 8×A100 amp", "model=efficientnet-b4 batch=128 precision=bf16 " + imagenet, "a100", 8, 2341, 90 * 1281167},
		{"efficientnet-b0 8×V100 fp32", "model=efficientnet-b0 batch=256 precision=fp32 " + imagenet, "v100", 8, 4571, 90 * 1281167},
		// Lambda's tables (the row's batch per GPU on 8; the 1-GPU rows
		// held out at a job's smaller batch: they failed, 0.66 and 0.53,
		// while the 8-GPU figure was calibrated at the job's batch).
		{"resnet50 8×H100 amp", "model=resnet50 batch=1280 precision=amp " + imagenet, "h100", 8, 20728, 90 * 1281167},
		{"resnet50 1×H100 tf32 (held out)", "model=resnet50 batch=256 precision=tf32 " + imagenet, "h100-sxm", 1, 1753, 90 * 1281167},
		{"bert-large SQuAD 8×H100 amp", "model=bert-large batch=112 precision=bf16 epochs=2 samples=88641", "h100", 8, 2167, 2 * 88641},
		{"bert-large SQuAD 1×H100 amp (held out)", "model=bert-large batch=32 precision=bf16 epochs=2 samples=88641", "h100", 1, 301, 2 * 88641},
		{"resnet50 8×H200 tf32", "model=resnet50 batch=1280 precision=tf32 " + imagenet, "h200", 8, 17947, 90 * 1281167},
		{"resnet50 1×H200 amp (held out)", "model=resnet50 batch=256 precision=amp " + imagenet, "h200", 1, 3079, 90 * 1281167},
		{"bert-large SQuAD 1×H200 amp (held out)", "model=bert-large batch=32 precision=amp epochs=2 samples=88641", "nvidia_h200", 1, 350, 2 * 88641},
		{"bert-large SQuAD 1×H200 tf32 (held out)", "model=bert-large batch=24 precision=tf32 epochs=2 samples=88641", "h200", 1, 181, 2 * 88641},
		{"resnet50 1×A10 amp", "model=resnet50 batch=256 precision=amp " + imagenet, "a10", 1, 638, 90 * 1281167},
		{"bert-large SQuAD 1×A10 tf32", "model=bert-large batch=12 precision=tf32 epochs=2 samples=88641", "a10", 1, 19, 2 * 88641},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &Job{Comment: "strata: " + tt.comment, GPUsPerJob: tt.gpus, GPUType: tt.gpuType}
			d, r, err := EstimateDuration(j, tt.gpus, 0, Options{})
			if err != nil || r != ReasonModelled {
				t.Fatalf("EstimateDuration = %v, %s, %v", d, r, err)
			}
			want := tt.samples / tt.published
			if ratio := d.Seconds() / want; ratio > 1.35 || ratio < 1/1.35 {
				t.Errorf("modelled %.0f s, published %.0f s: ratio %.2f outside 1/1.35..1.35", d.Seconds(), want, ratio)
			}
		})
	}
}

// TestReferenceBehaviourKept: without a GPU type, and on T4 (the Pollux
// traces' GPU, default fp32) for the Pollux curves, jobs time as before.
func TestReferenceBehaviourKept(t *testing.T) {
	for _, c := range []struct{ comment, gpu string }{
		{"strata: model=cifar10 batch=2048 iters=3338", "t4"},
		{"strata: model=cifar10 batch=2048 iters=3338", ""},
		{"strata: model=resnet50 batch=64 iters=1000", ""},
		{"strata: params=7B flops=86T batch=1 iters=1000", ""},
	} {
		j := &Job{Comment: c.comment, GPUsPerJob: 4, GPUType: c.gpu}
		got, _, err := EstimateDuration(j, 4, 0, Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := newJobModel(mustHints(t, c.comment), true, func() *Options { o := Options{}.withDefaults(); return &o }())
		o := Options{}.withDefaults()
		want, _ := m.duration(j, 4, 0, o.NodeGPUs, 1, &o)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s on %q (-reference +got):\n%s", c.comment, c.gpu, diff)
		}
	}
}

func mustHints(t *testing.T, comment string) Hints {
	t.Helper()
	h, _, err := ParseHints(comment)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestSizedAndInterpolatedModels (issue 32): a 7B fine-tune on 4 A100s is
// timed at the datasheet peak and a published MFU, not at reference-tflops
// (4 days before); bert batch=32 lies between measured curves and is timed;
// (on 2 GPUs: batch 12 was measured on 1-3 GPUs only); a bad precision= makes the hint invalid (the job keeps its history timing).
func TestSizedAndInterpolatedModels(t *testing.T) {
	const ft = "strata: params=7B flops=86T batch=4 epochs=1 samples=20000"
	on := func(comment, gpu string, w int) (time.Duration, Reason, error) {
		return EstimateDuration(&Job{Comment: comment, GPUsPerJob: w, GPUType: gpu}, w, 0, Options{})
	}
	ref, _, err := on(ft, "", 4)
	if err != nil {
		t.Fatal(err)
	}
	a100, r, err := on(ft, "a100", 4)
	if err != nil || r != ReasonModelled {
		t.Fatalf("7B on a100: %v %s %v", a100, r, err)
	}
	// 20000 × 86 TFLOP / (4 × 312 TFLOPS × MFU): 0.8 h at 46 %, 1.8 h at 21 %;
	// the gradient all-reduce of 28 GB per step adds to it.
	if a100 > 6*time.Hour || a100 < time.Hour || a100 >= ref/4 {
		t.Errorf("7B fine-tune on 4 A100: %v (reference-tflops: %v)", a100, ref)
	}
	b32, r, err := on("strata: model=bert batch=32 iters=1000", "t4", 2)
	if err != nil || r != ReasonModelled {
		t.Fatalf("bert batch=32: %v %s %v", b32, r, err)
	}
	b12, _, _ := on("strata: model=bert batch=12 iters=1000", "t4", 2)
	b48, _, _ := on("strata: model=bert batch=48 iters=1000", "t4", 2)
	if !(b12 < b32 && b32 < b48) {
		t.Errorf("bert at 12, 32, 48: %v %v %v", b12, b32, b48)
	}
	if _, r, err := on("strata: model=resnet50 batch=64 iters=10 precision=fp33", "a100", 1); r != ReasonHintInvalid ||
		err == nil || !strings.Contains(err.Error(), "did you mean precision=fp32?") {
		t.Errorf("precision=fp33: %s %v", r, err)
	}
}

// TestUnknownGPUType (issue 32): a job on a GPU type neither built in nor
// in gpu-speed is timed from its time limit (no history here) and says why;
// the site's gpu-speed makes the type known again.
func TestUnknownGPUType(t *testing.T) {
	j := &Job{Comment: "strata: model=resnet50 batch=256 iters=1000", GPUsPerJob: 4, GPUType: "bigcard", TimeLimit: 5 * time.Hour}
	d, r, err := EstimateDuration(j, 4, 0, Options{})
	if err != nil || r != ReasonGPUUnknown || d != 5*time.Hour {
		t.Errorf("unknown GPU type: %v %s %v; want the time limit, %s", d, r, err, ReasonGPUUnknown)
	}
	d, r, err = EstimateDuration(j, 4, 0, Options{GPUSpeed: map[string]float64{"bigcard": 2}})
	if err != nil || r != ReasonModelled || d >= 5*time.Hour {
		t.Errorf("bigcard in gpu-speed: %v %s %v; want modelled", d, r, err)
	}
}

func TestSuggestModels(t *testing.T) {
	c := DefaultCatalog()
	tests := []struct {
		name string
		want []string
	}{
		{"llama2", []string{"llama2-13b", "llama2-70b", "llama2-7b"}},
		{"gpt2", []string{"gpt2-large", "gpt2-medium", "gpt2-small", "gpt2-xl"}},
		{"bert-bse", []string{"bert-base"}},
		{"resnet-50", []string{"resnet50"}},
		{"zzzzzz", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, c.SuggestModels(tt.name)); diff != "" {
			t.Errorf("SuggestModels(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestDatasheetScalingHeldOut (issue 32.1): a GPU without published rows
// is timed from the nearest published GPU scaled by scale. Each GPU's rows
// held out in turn, its published throughputs are modelled within 1.35×.
// With the peak ratio alone, ResNet-50 amp on A10 modelled 0.62 × its
// published time, and H200 0.76–0.83 × (at H100's speed). Not parallel:
// it swaps the package's published table.
func TestDatasheetScalingHeldOut(t *testing.T) {
	all := publishedThroughputs
	defer func() { publishedThroughputs = all }()
	batch := map[string]int{"resnet50": 256, "bert-large": 32}
	for _, gpu := range []string{"h100", "h200", "a10"} {
		var held []Published
		for _, r := range all {
			if r.GPU != gpu {
				held = append(held, r)
			}
		}
		for _, r := range all {
			if r.GPU != gpu {
				continue
			}
			c := fmt.Sprintf("strata: model=%s batch=%d precision=%s epochs=1 samples=100000", r.Model, max(r.Batch, batch[r.Model]), r.Precision)
			publishedThroughputs = held
			d, reason, err := EstimateDuration(&Job{Comment: c, GPUsPerJob: r.GPUs, GPUType: gpu}, r.GPUs, 0, Options{})
			publishedThroughputs = all
			if err != nil || reason != ReasonModelled {
				t.Fatalf("%s: %v %s %v", c, d, reason, err)
			}
			if ratio := d.Seconds() / (100000 / r.SamplesPerSec); ratio > 1.35 || ratio < 1/1.35 {
				t.Errorf("%s on %d × %s held out: modelled %.2f × the published time", c, r.GPUs, gpu, ratio)
			}
		}
	}
}

// TestAccumulationPaysExchangeOncePerStep (docs/hints.md, models timed
// from their size): batch is what one GPU adds to an optimizer step and the
// gradient exchange is paid once per step, so llama2-70b accumulating 16
// sequences is timed 1.56× (8 A100s) and 3.16× (64) faster than the same
// sequences at batch=1. Against AMD's 1,174 tokens/s per GPU for Llama 3.1
// 70B BF16 on 64 MI325X (AMD-AGI/Primus, docs_deprecated/tech_blogs/
// projection/projection.md, commit fd1eeabb; no catalog row: MI325X is not
// built in and the global batch is not given), params=70.6B at batch=1
// modelled 2.5× (8 GPUs) and 7.5× (64) that time, at batch=16 1.2× and
// 1.5× (MI300X's datasheet, which has MI325X's peak).
func TestAccumulationPaysExchangeOncePerStep(t *testing.T) {
	at := func(batch, gpus int) time.Duration {
		c := fmt.Sprintf("strata: model=llama2-70b batch=%d epochs=1 samples=32000", batch)
		d, r, err := EstimateDuration(&Job{Comment: c, GPUsPerJob: gpus, GPUType: "a100"}, gpus, 0, Options{})
		if err != nil || r != ReasonModelled {
			t.Fatalf("%s on %d: %v %s %v", c, gpus, d, r, err)
		}
		return d
	}
	for _, tt := range []struct {
		gpus int
		min  float64
	}{{8, 1.4}, {64, 2.5}} {
		one, sixteen := at(1, tt.gpus), at(16, tt.gpus)
		if ratio := one.Seconds() / sixteen.Seconds(); ratio < tt.min {
			t.Errorf("%d GPUs: batch=1 %v, batch=16 %v: ratio %.2f, want ≥ %.1f (one exchange per step)", tt.gpus, one, sixteen, ratio, tt.min)
		}
	}
}
