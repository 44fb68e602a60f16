package planner

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseHints(t *testing.T) {
	tests := []struct {
		name    string
		comment string
		want    Hints
		wantOK  bool
	}{
		{name: "no segment", comment: "my own notes", wantOK: false},
		{name: "empty comment", comment: "", wantOK: false},
		{name: "prefix inside a word is not a segment", comment: "xstrata: gpus=1", wantOK: false},
		{name: "design example", wantOK: true,
			comment: "strata: model=resnet50 batch=64 epochs=90 samples=1281167 gpus=2-8 arch=ps ps=auto deadline=2026-12-01T18:00",
			want: Hints{Model: "resnet50", Batch: 64, Epochs: 90, Samples: 1281167, GPUMin: 2, GPUMax: 8, Arch: ArchPS,
				PSAuto: true, Deadline: time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)}},
		{name: "user text before and after", comment: "run 7; STRATA: Model=CIFAR10 BATCH=2048 iters=3338 gpus=1-16; tuned lr", wantOK: true,
			want: Hints{Model: "cifar10", Batch: 2048, Iters: 3338, GPUMin: 1, GPUMax: 16}},
		{name: "fixed gpus and sizes", comment: "strata: gpus=4 bb=1.5T mem=64G rewrite=no weight=2.5 energy=min", wantOK: true,
			want: Hints{GPUMin: 4, GPUMax: 4, BBBytes: 3 << 39, MemBytes: 64 << 30, NoRewrite: true, Weight: 2.5, Energy: EnergyMin}},
		{name: "precision bf16 is amp", comment: "strata: model=llama2-7b batch=1 iters=10 PRECISION=BF16", wantOK: true,
			want: Hints{Model: "llama2-7b", Batch: 1, Iters: 10, Precision: PrecisionAMP}},
		{name: "precision tf32", comment: "strata: model=resnet50 batch=256 iters=10 precision=tf32", wantOK: true,
			want: Hints{Model: "resnet50", Batch: 256, Iters: 10, Precision: PrecisionTF32}},
		{name: "params and flops", comment: "strata: params=25M flops=12G batch=32 iters=1K arch=allreduce", wantOK: true,
			want: Hints{Params: 25e6, FLOPs: 12e9, Batch: 32, Iters: 1000, Arch: ArchAllReduce}},
		{name: "preemptible with signal and restart cost", comment: "strata: gpus=1-8 preempt=yes signal=SIGusr2 restart=90s", wantOK: true,
			want: Hints{GPUMin: 1, GPUMax: 8, Preempt: true, Signal: "USR2", RestartCost: 90 * time.Second}},
		{name: "preempt=no and a signal without SIG", comment: "strata: preempt=No signal=term restart=5M", wantOK: true,
			want: Hints{Signal: "TERM", RestartCost: 5 * time.Minute}},
		{name: "ps range and rfc3339 deadline with zone", comment: "strata: arch=ps ps=1-4 deadline=2026-12-01T18:00:00+01:00", wantOK: true,
			want: Hints{Arch: ArchPS, PSMin: 1, PSMax: 4, Deadline: time.Date(2026, 12, 1, 17, 0, 0, 0, time.UTC)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := ParseHints(tt.comment)
			if err != nil {
				t.Fatalf("ParseHints(%q) error: %v", tt.comment, err)
			}
			if ok != tt.wantOK {
				t.Errorf("ParseHints(%q) ok = %v, want %v", tt.comment, ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseHints(%q) mismatch (-want +got):\n%s", tt.comment, diff)
			}
		})
	}
}

func TestParseHintsErrors(t *testing.T) {
	tests := []struct {
		comment string
		field   string
		value   string
	}{
		{"strata: gpus=8-2", "gpus", "8-2"},
		{"strata: gpus=0-4", "gpus", "0-4"},
		{"strata: gpus=two", "gpus", "two"},
		{"strata: color=blue", "color", "blue"},
		{"strata: gpus=1-2 GPUS=1-4", "gpus", "1-4"},
		{"strata: arch=mpi", "arch", "mpi"},
		{"strata: ps=0", "ps", "0"},
		{"strata: deadline=tomorrow", "deadline", "tomorrow"},
		{"strata: weight=-1", "weight", "-1"},
		{"strata: weight=NaN", "weight", "NaN"},
		{"strata: energy=green", "energy", "green"},
		{"strata: precision=fp8", "precision", "fp8"},
		{"strata: precison=amp", "precison", "amp"},
		{"strata: bb=lots", "bb", "lots"},
		{"strata: mem=0", "mem", "0"},
		{"strata: rewrite=maybe", "rewrite", "maybe"},
		{"strata: batch=", "batch", ""},
		{"strata: gpus = 2", "gpus", ""},
		{"strata:", "strata:", ""},
		{"strata: gpus=1 ; strata: gpus=2", "strata:", ""},
		{"strata: model=resnet50 params=25M flops=1G", "params", "25000000"},
		{"strata: params=25M", "flops", ""},
		{"strata: iters=10 epochs=1 samples=5", "iters", "10"},
		{"strata: epochs=3", "samples", ""},
		{"strata: arch=single gpus=1-4", "gpus", "1-4"},
		{"strata: arch=allreduce ps=2", "ps", "2-2"},
		{"strata: model=resnet50 epochs=1 samples=10", "batch", ""},
		{"strata: samples=1.5 epochs=1", "samples", "1.5"},
		{"strata: preempt=maybe", "preempt", "maybe"},
		{"strata: preempt=yes signal=KILL", "signal", "KILL"},
		{"strata: preempt=yes signal=SIGSTOP", "signal", "SIGSTOP"},
		{"strata: preempt=yes restart=soon", "restart", "soon"},
		{"strata: preempt=yes restart=0s", "restart", "0s"},
		{"strata: preempt=yes restart=-1m", "restart", "-1m"},
		{"strata: preempt=yes restart=48h", "restart", "48h"},
		{"strata: preempt=yes rewrite=no", "preempt", "yes"},
	}
	for _, tt := range tests {
		t.Run(tt.comment, func(t *testing.T) {
			_, ok, err := ParseHints(tt.comment)
			var he *HintError
			if !errors.As(err, &he) {
				t.Fatalf("ParseHints(%q) error = %v, want *HintError", tt.comment, err)
			}
			if !ok {
				t.Errorf("ParseHints(%q) ok = false, want true (a segment exists)", tt.comment)
			}
			got := [2]string{he.Field, he.Value}
			if diff := cmp.Diff([2]string{tt.field, tt.value}, got); diff != "" {
				t.Errorf("field/value mismatch (-want +got):\n%s", diff)
			}
			if he.Fix == "" {
				t.Errorf("error %q has no fix", err)
			}
		})
	}
}

func TestReasonsDescribed(t *testing.T) {
	for _, r := range Reasons() {
		if d := r.Describe(); d == "" || d == string(r) {
			t.Errorf("reason %q has no description", r)
		}
	}
	if got := Reason("unknown_code").Describe(); got != "unknown_code" {
		t.Errorf("Describe of an unknown code = %q", got)
	}
}

func TestOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		ok   bool
	}{
		{"zero value", Options{}, true},
		{"speed factor 0", Options{GPUSpeed: map[string]float64{"a100": 0}}, false},
		{"negative energy weight", Options{EnergyWeight: -1}, false},
		{"bad ps model", Options{PSComm: "sometimes"}, false},
		{"negative bandwidth", Options{InterNodeBps: -1}, false},
		{"negative long share", Options{LongJobShare: -0.1}, false},
	}
	for _, tt := range tests {
		if err := tt.o.Validate(); (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
	if _, err := NewPolicy("nope", Options{}); err == nil {
		t.Error("NewPolicy accepted an unknown name")
	}
}

// TestHintsAsResearchersWriteThem (issue 17): Slurm's units, billions,
// a deadline with a space, every error at once, suggestions.
func TestHintsAsResearchersWriteThem(t *testing.T) {
	h, ok, err := ParseHints("strata: params=7B flops=42G batch=8 mem=64000 deadline=2026-12-01 18:00 iters=10")
	if err != nil || !ok {
		t.Fatalf("ParseHints: %v", err)
	}
	if h.Params != 7e9 || h.MemBytes != 64000<<20 || !h.Deadline.Equal(time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)) {
		t.Errorf("params %d, mem %d, deadline %v", h.Params, h.MemBytes, h.Deadline)
	}
	if h, _, _ := ParseHints("strata: mem=64G"); h.MemBytes != 64<<30 {
		t.Errorf("mem=64G read as %d bytes, want 64 GiB", h.MemBytes)
	}
	// mem= takes the size units of bb= (issue 26.1): 64GB is 64 GiB, as bb=64GB is.
	for _, v := range []string{"64G", "64GB", "64GiB"} {
		h, _, err := ParseHints("strata: bb=" + v + " mem=" + v)
		if err != nil || h.MemBytes != 64<<30 || h.BBBytes != 64<<30 {
			t.Errorf("mem=%s bb=%s: %d, %d bytes, %v; want 64 GiB each", v, v, h.MemBytes, h.BBBytes, err)
		}
	}
	_, _, errs := ParseHintsAll("strata: modle=resnet50 mem=64XB gpus=8-2 sginal=USR1")
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		"hint modle=resnet50: unknown key; did you mean model=resnet50?",
		"hint mem=64XB: want memory per worker in Slurm's units: a number of MB (mem=64000, as --mem) or K/M/G/T, binary as for bb= (mem=64G = mem=64GB = 64 GiB)",
		"hint gpus=8-2: want MIN-MAX with 1 ≤ MIN ≤ MAX ≤ 4096 (e.g. gpus=2-8), or one count for a fixed size",
		"hint sginal=USR1: unknown key; did you mean signal=USR1?",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("all errors at once (-want +got):\n%s", diff)
	}
	if s := Suggest("resnet-50", []string{"resnet50", "vgg16"}); s != "resnet50" {
		t.Errorf("Suggest(resnet-50) = %q", s)
	}
}
