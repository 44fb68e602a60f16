package hint

import (
	"errors"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/planner"
)

// TestCheckPublishedTargets (issue 32): hint check --json on a script
// asking for 8 GPUs of a type Strata knows times ResNet-50 (90 epochs of
// ImageNet, batch 256) within 1.35× of NVIDIA's published figures, and
// names the row and its source.
func TestCheckPublishedTargets(t *testing.T) {
	const work = "model=resnet50 batch=256 epochs=90 samples=1281167"
	tests := []struct {
		name, gres, precision string
		published             float64 // img/s on 8 GPUs
	}{
		{"A100 amp", "a100", "precision=amp", 16621},
		{"A100 tf32", "a100", "precision=tf32", 7248},
		{"V100 fp32", "v100", "precision=fp32", 2855},
		{"A100 default precision (amp)", "A100", "", 16621},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := "#SBATCH --gres=gpu:" + tt.gres + ":8 --time=24:00:00\n#SBATCH --comment='strata: " + work + " " + tt.precision + "'\n"
			var out strings.Builder
			if err := CheckScript(&out, ReadScript(script), Options{JSON: true, Catalog: planner.DefaultCatalog()}); err != nil {
				t.Fatalf("CheckScript: %v\n%s", err, out.String())
			}
			var res Result
			if err := jsonDecode([]byte(out.String()), &res); err != nil {
				t.Fatal(err)
			}
			if len(res.Runs) != 1 || res.TimedBy == nil || res.TimedBy.Source == "" {
				t.Fatalf("runs %v, timed by %+v: want one run and a sourced row", res.Runs, res.TimedBy)
			}
			want := 90 * 1281167 / tt.published
			if r := res.Runs[0].Seconds / want; r > 1.35 || r < 1/1.35 {
				t.Errorf("modelled %.0f s, published %.0f s: ratio %.2f", res.Runs[0].Seconds, want, r)
			}
			if len(res.Warnings) > 0 {
				t.Errorf("warnings %v: a 24 h limit is long enough", res.Warnings)
			}
		})
	}
}

// TestCheckCatalogErrors: a bad precision, an unknown GPU type and an
// unknown model are all reported at once, with did-you-means, exit 2.
func TestCheckCatalogErrors(t *testing.T) {
	tests := []struct {
		name, comment, gpuType string
		want                   []string
	}{
		{"precision", "model=resnet50 batch=64 iters=10 precision=fp8", "", []string{"hint precision=fp8: did you mean precision=fp16?"}},
		{"gpu type", "model=resnet50 batch=64 iters=10", "a10O", []string{"hint gpu type=a10O: did you mean a100?"}},
		{"family", "model=llama batch=1 iters=10", "", []string{"did you mean model=llama-13b or model=llama-65b or model=llama-7b"}},
		{"all at once", "model=bert-bas batch=8 iters=10 precision=fp64", "h1OO", []string{
			"hint precision=fp64", "hint model=bert-bas: not in the catalog; did you mean model=bert-base?", "hint gpu type=h1OO: did you mean h100?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			err := Check(&out, tt.comment, Options{Catalog: planner.DefaultCatalog(), GPUType: tt.gpuType})
			var inv InvalidError
			if !errors.As(err, &inv) || inv.ExitCode() != 2 {
				t.Fatalf("error %v: want an InvalidError (exit 2)", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestCheckInterpolatedBatch (issue 32): bert batch=32 lies between the
// measured 12 and 48 and is timed, between their times.
func TestCheckInterpolatedBatch(t *testing.T) {
	run := func(batch string) float64 {
		var out strings.Builder
		err := Check(&out, "model=bert batch="+batch+" iters=1000", Options{JSON: true, Catalog: planner.DefaultCatalog()})
		if err != nil {
			t.Fatalf("batch=%s: %v", batch, err)
		}
		var res Result
		if err := jsonDecode([]byte(out.String()), &res); err != nil || len(res.Runs) != 1 {
			t.Fatalf("batch=%s: %v %v", batch, err, res.Runs)
		}
		return res.Runs[0].Seconds
	}
	lo, mid, hi := run("12"), run("32"), run("48")
	if !(lo < mid && mid < hi) {
		t.Errorf("bert 1000 steps at batch 12, 32, 48: %.0f, %.0f, %.0f s; want increasing", lo, mid, hi)
	}
	var out strings.Builder
	if err := Check(&out, "model=bert batch=4 iters=10", Options{Catalog: planner.DefaultCatalog()}); err == nil ||
		!strings.Contains(err.Error(), "batches between 12 and 384 are interpolated") {
		t.Errorf("batch=4: %v; want the measured range", err)
	}
}

// TestCheckSpreadAndConfidentWarnings (issue 32.3): a run timed at a
// typical MFU shows the published MFU range, and a time limit only warns
// when even the fast end of it is too long; a flops= below 6 × params warns.
func TestCheckSpreadAndConfidentWarnings(t *testing.T) {
	const hint = "params=7B flops=86T batch=4 epochs=1 samples=20000"
	check := func(limit, extra string) Result {
		t.Helper()
		script := "#SBATCH --gres=gpu:a100:4 --time=" + limit + "\n#SBATCH --comment='strata: " + hint + extra + "'\n"
		var out strings.Builder
		if err := CheckScript(&out, ReadScript(script), Options{JSON: true, Catalog: planner.DefaultCatalog()}); err != nil {
			t.Fatalf("CheckScript: %v", err)
		}
		var res Result
		if err := jsonDecode([]byte(out.String()), &res); err != nil || len(res.Runs) != 1 {
			t.Fatalf("%v %v", err, res.Runs)
		}
		return res
	}
	res := check("10:00:00", "")
	r := res.Runs[0]
	if !(r.LowSeconds > 0 && r.LowSeconds < r.Seconds && r.Seconds < r.HighSeconds) {
		t.Fatalf("run %+v: want low < modelled < high", r)
	}
	between := seconds((r.LowSeconds + r.Seconds) / 2)
	if w := check(fmtDuration(between), "").Warnings; len(w) != 0 {
		t.Errorf("limit %v inside the spread: warnings %v, want none", between, w)
	}
	below := seconds(r.LowSeconds / 2)
	if w := check(fmtDuration(below), "").Warnings; len(w) != 1 || !strings.Contains(w[0], "is shorter than the modelled run") {
		t.Errorf("limit %v below the spread: warnings %v, want one", below, w)
	}
	res = check("10:00:00", "")
	if len(res.Warnings) != 0 {
		t.Errorf("warnings %v", res.Warnings)
	}
	var out strings.Builder
	if err := Check(&out, "params=7B flops=14G batch=4 iters=10", Options{Catalog: planner.DefaultCatalog()}); err != nil ||
		!strings.Contains(out.String(), "flops=1.4e+10 is below 6 × params=7000000000") {
		t.Errorf("flops below 6 × params: %v\n%s", err, out.String())
	}
}
