package sim

import (
	"context"
	"math"
	"testing"
)

// On a cluster of partitions each partition's GPUs draw their own type's
// power: one 4-GPU job for an hour in the first partition (T4) beside an
// idle V100 partition costs 4 T4 busy hours and 4 V100 idle hours — not
// 8 GPUs at the cluster's T4 power.
func TestEnergyPerPartitionType(t *testing.T) {
	tr := mustTrace(t, "job_id,submit_time,duration_s,gpus\n1,0,3600,4\n")
	spec, err := ParseCluster("2x4:t4,parts=slow:1:t4/fast:1:v100")
	if err != nil {
		t.Fatal(err)
	}
	r, err := RunNamed(context.Background(), Config{Cluster: spec}, tr, PolicySlurm)
	if err != nil {
		t.Fatal(err)
	}
	t4, v100 := defaultPower["t4"], defaultPower["v100"]
	want := (4*3600*t4.BusyW + 4*3600*v100.IdleW) / 3.6e6
	if r.Jobs != 1 || math.Abs(r.EnergyKWh-want) > 0.001 {
		t.Errorf("%d jobs, %.3f kWh; want 1 job, %.3f kWh", r.Jobs, r.EnergyKWh, want)
	}
}
