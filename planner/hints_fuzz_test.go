package planner

import (
	"errors"
	"testing"
)

// FuzzParseHints checks that any comment either has no segment, parses to
// consistent hints, or fails with a *HintError naming a field and a fix.
func FuzzParseHints(f *testing.F) {
	for _, s := range []string{
		"strata: model=resnet50 batch=64 epochs=90 samples=1281167 gpus=2-8 arch=ps ps=auto deadline=2026-12-01T18:00",
		"notes; strata: model=cifar10 batch=2048 iters=3338 gpus=1-16; more notes",
		"strata: params=25M flops=12G batch=32 iters=1K bb=1T mem=16G weight=2 energy=balanced rewrite=no",
		"strata: gpus=8-2", "strata: ps=1-", "strata:", "strata: =", "strata: a=b=c", "STRATA: GPUS=4",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, comment string) {
		h, ok, err := ParseHints(comment)
		if err != nil {
			var he *HintError
			if !errors.As(err, &he) || he.Field == "" || he.Fix == "" {
				t.Fatalf("ParseHints(%q) error %v is not a complete *HintError", comment, err)
			}
			if !ok {
				t.Fatalf("ParseHints(%q) failed without a segment", comment)
			}
			return
		}
		if !ok {
			if h != (Hints{}) {
				t.Fatalf("ParseHints(%q) returned hints without a segment", comment)
			}
			return
		}
		if h.GPUMin > h.GPUMax || h.PSMin > h.PSMax || h.Weight < 0 || h.BBBytes < 0 || h.MemBytes < 0 {
			t.Fatalf("ParseHints(%q) = %+v: inconsistent", comment, h)
		}
		if (h.Params > 0) != (h.FLOPs > 0) || (h.Epochs > 0) != (h.Samples > 0) {
			t.Fatalf("ParseHints(%q) = %+v: unpaired fields", comment, h)
		}
	})
}
