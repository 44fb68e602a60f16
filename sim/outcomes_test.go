package sim

import (
	"context"
	"strings"
	"testing"
)

// TestOutcomes: the per-job outcomes agree with the run's JCTs, and a job
// starts on the GPUs it asked for when Slurm runs alone.
func TestOutcomes(t *testing.T) {
	tr, err := ReadTrace(strings.NewReader("job_id,submit_time,duration_s,gpus\na,0,100,4\nb,10,50,2\nc,20,30,4\n"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := ParseCluster("1x4")
	r, err := RunNamed(context.Background(), Config{Cluster: cs}, tr, PolicySlurm)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Outcomes) != 3 {
		t.Fatalf("outcomes = %d, want 3", len(r.Outcomes))
	}
	sum := 0.0
	for k, o := range r.Outcomes {
		if o.ID != tr.Jobs[k].ID || o.GPUs != tr.Jobs[k].GPUs || o.Start < o.Submit || o.End < o.Start {
			t.Errorf("outcome %d = %+v", k, o)
		}
		sum += o.End - o.Submit
	}
	if avg := round(sum/3, 1); avg != r.AvgJCT {
		t.Errorf("average JCT of outcomes %v, result %v", avg, r.AvgJCT)
	}
}
