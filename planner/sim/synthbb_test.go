package sim

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var updateBB = flag.Bool("update-bb", false, "rewrite testdata/pollux_workload1_bb.csv")

// The fixture is the rule applied to Pollux workload 1 with seed 1; it
// changes only when the rule does (go test ./planner/sim -run
// SynthBurstBufferFixture -update-bb).
func TestSynthBurstBufferFixture(t *testing.T) {
	tr := readTraceFile(t, "testdata/pollux_workload1.csv")
	var got bytes.Buffer
	if err := WriteTrace(&got, SynthBurstBuffer(tr, 1)); err != nil {
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
	got := SynthBurstBuffer(tr, 7)
	if d := cmp.Diff(got, SynthBurstBuffer(tr, 7)); d != "" {
		t.Errorf("two runs with one seed differ:\n%s", d)
	}
	if cmp.Equal(got, SynthBurstBuffer(tr, 8)) {
		t.Error("seeds 7 and 8 give the same trace")
	}
	for _, j := range got.Jobs[:2] {
		d := BBDatasets[j.Model]
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
