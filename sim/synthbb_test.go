package sim

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateBB = flag.Bool("update-bb", false, "rewrite testdata/pollux_workload1_bb.csv")

// The fixture is the rule applied to Pollux workload 1 with seed 1; it
// changes only when the rule does (go test ./sim -run
// SynthBurstBufferFixture -update-bb).
func TestSynthBurstBufferFixture(t *testing.T) {
	tr := readTraceFile(t, "testdata/pollux_workload1.csv")
	var got bytes.Buffer
	if err := WriteTrace(&got, SynthBurstBuffer(tr, 1, BBCatalogs[0])); err != nil {
		t.Fatal(err)
	}
	const fixture = "testdata/pollux_workload1_bb.csv"
	if *updateBB {
		if err := os.WriteFile(fixture, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), got.String()); d != "" {
		t.Errorf("%s differs from the rule's output (-file +rule); run with -update-bb after checking:\n%s", fixture, d)
	}
}

// The rule: sizes from the dataset table, seeded draws within their
// bounds, the same output for the same seed, other jobs untouched, and a
// trace written and read back unchanged.
func TestSynthBurstBuffer(t *testing.T) {
	tr := mustTrace(t, "job_id,submit_time,duration_s,gpus,model,jct_x\n"+
		"a,0,100,4,imagenet,7\nb,1,10,1,cifar10,\nc,2,10,2,unknownnet,\n")
	got := SynthBurstBuffer(tr, 7, BBCatalogs[0])
	if d := cmp.Diff(got, SynthBurstBuffer(tr, 7, BBCatalogs[0])); d != "" {
		t.Errorf("two runs with one seed differ:\n%s", d)
	}
	if cmp.Equal(got, SynthBurstBuffer(tr, 8, BBCatalogs[0])) {
		t.Error("seeds 7 and 8 give the same trace")
	}
	for _, j := range got.Jobs[:2] {
		d := BBCatalogs[0].Models[j.Model]
		ckpt := 12 * d.Params
		lo, hi := float64(d.InBytes)+3*float64(ckpt), 1.5*float64(d.InBytes)+3*float64(ckpt)+bbGranularity
		if j.BBInBytes != d.InBytes || j.BBOutBytes != ckpt || float64(j.BBBytes) < lo || float64(j.BBBytes) > hi || j.BBBytes%bbGranularity != 0 {
			t.Errorf("job %s: in %d out %d capacity %d; want %d, %d, a multiple of 1 GiB in [%.0f, %.0f]",
				j.ID, j.BBInBytes, j.BBOutBytes, j.BBBytes, d.InBytes, ckpt, lo, hi)
		}
		perGPU := float64(j.MemoryMB) / float64(j.GPUs) / 1024 / d.MemGiB
		if perGPU < 0.75 || perGPU > 1.5+1e-3 {
			t.Errorf("job %s: memory %d MiB is %.3f × the model's per-GPU memory, want [0.75, 1.5]", j.ID, j.MemoryMB, perGPU)
		}
	}
	if d := cmp.Diff(tr.Jobs[2], got.Jobs[2]); d != "" {
		t.Errorf("a job of an unknown model changed:\n%s", d)
	}
	var buf bytes.Buffer
	if err := WriteTrace(&buf, got); err != nil {
		t.Fatal(err)
	}
	back := mustTrace(t, buf.String())
	if d := cmp.Diff(got, back); d != "" {
		t.Errorf("trace written and read back differs:\n%s", d)
	}
}

// "auto" picks the catalog of the paper whose models the trace names, so
// one model name stages different data in different workloads; a name
// that is not a catalog is refused with the choices.
func TestPickBBCatalog(t *testing.T) {
	for _, tc := range []struct {
		name, trace, catalog, want string
		wantIn                     int64
	}{
		{"pollux", "ds,0,10,1,deepspeech2\nn,1,10,1,ncf\n", "", "pollux", 1 << 30},
		{"elasticflow", "ds,0,10,1,deepspeech2\ng,1,10,1,gpt2\n", "auto", "elasticflow", 6300 << 20},
		{"gavel", "r,0,10,1,resnet-50\nl,1,10,1,lm\n", "", "gavel", 147897477120 + 6744924160},
		{"most known", "ds,0,10,1,deepspeech2\ng,1,10,1,gpt2\nx,2,10,1,unknownnet\n", "", "elasticflow", 6300 << 20},
		{"asked for", "ds,0,10,1,deepspeech2\ng,1,10,1,gpt2\n", "pollux", "pollux", 1 << 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := mustTrace(t, "job_id,submit_time,duration_s,gpus,model\n"+tc.trace)
			cat, err := PickBBCatalog(tr, tc.catalog)
			if err != nil {
				t.Fatal(err)
			}
			if cat.Name != tc.want {
				t.Errorf("catalog %s, want %s", cat.Name, tc.want)
			}
			if got := SynthBurstBuffer(tr, 1, cat).Jobs[0].BBInBytes; got != tc.wantIn {
				t.Errorf("first job stages in %d bytes, want %d", got, tc.wantIn)
			}
		})
	}
	tr := mustTrace(t, "job_id,submit_time,duration_s,gpus,model\na,0,10,1,gpt2\nb,0,10,1,ncf\nc,0,10,1,zz\n")
	if _, err := PickBBCatalog(tr, "philly"); err == nil || !strings.Contains(err.Error(), "pollux, elasticflow, gavel") {
		t.Errorf("an unknown catalog: error %v, want one listing the catalogs", err)
	}
	if got, want := BBCatalogs[0].Unknown(tr), []string{"gpt2", "zz"}; !cmp.Equal(got, want) {
		t.Errorf("unknown models %v, want %v", got, want)
	}
}
