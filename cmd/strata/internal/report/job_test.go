package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
	"github.com/strata-hpc/strata/db"
)

const gb = int64(1e9)

// jobWith is a job of one hour on the GPUs given (util %, memory peak and
// size in bytes) whose GPUs were idle idlePct of their time.
func jobWith(idlePct float64, gpus ...db.JobGPU) db.JobReport {
	jr := db.JobReport{Job: 7, User: "alice", Account: "nlp", Partition: "gpu", Name: "train"}
	var util float64
	for i, g := range gpus {
		g.GPUSeconds, g.EnergyJ = 3600, 3600*200
		g.IdleGPUSeconds = 3600 * idlePct / 100
		if g.UUID == "" {
			g.UUID, g.Host = "GPU-"+string(rune('a'+i)), "n1"
		}
		g.Series = []db.GPUPoint{{UtilGPU: g.UtilGPU, MemUsedBytes: g.MemPeakBytes, PowerW: 200}}
		gpus[i] = g
		jr.GPUs = append(jr.GPUs, db.JobGPUSpan{Host: g.Host, UUID: g.UUID})
		jr.Totals.GPUSeconds += g.GPUSeconds
		jr.Totals.EnergyJ += g.EnergyJ
		jr.Totals.IdleGPUSeconds += g.IdleGPUSeconds
		util += g.UtilGPU
	}
	jr.PerGPU = gpus
	if len(gpus) > 0 {
		jr.Totals.UtilGPU = util / float64(len(gpus))
	}
	return jr
}

func TestAdvice(t *testing.T) {
	busy := db.JobGPU{UtilGPU: 90, MemPeakBytes: 60 * gb, MemTotalBytes: 80 * gb}
	tests := []struct {
		name string
		jr   db.JobReport
		want string // a part of the advice ("" = no advice)
	}{
		{"no telemetry", db.JobReport{Job: 7}, ""},
		{"one of two GPUs unused", jobWith(0, busy, db.JobGPU{UtilGPU: 1, MemPeakBytes: gb, MemTotalBytes: 80 * gb}),
			"1 of 2 GPUs were unused"},
		{"low utilization", jobWith(0, db.JobGPU{UtilGPU: 12, MemPeakBytes: 60 * gb, MemTotalBytes: 80 * gb}),
			"GPU utilization 12 %: ask for fewer GPUs or check the input pipeline"},
		{"utilization at the threshold is not low", jobWith(0, db.JobGPU{UtilGPU: 25, MemPeakBytes: 60 * gb, MemTotalBytes: 80 * gb}),
			"were used well"},
		{"small memory peak", jobWith(0, db.JobGPU{UtilGPU: 90, MemPeakBytes: 3 * gb, MemTotalBytes: 80 * gb}),
			"GPU memory peak 3.0 GB of 80 GB: a smaller GPU type would do"},
		{"memory size unknown: no memory advice", jobWith(0, db.JobGPU{UtilGPU: 90, MemPeakBytes: 3 * gb}), "were used well"},
		{"idle share", jobWith(40, busy), "GPUs idle 40 % of their time"},
		{"used well", jobWith(10, busy, busy), "GPU utilization 90 %, idle 10 % of the time: the GPUs were used well"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Advice(tt.jr)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("Advice = %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

// `report job`: text with each GPU and the advice, JSON with the idle share
// and advice, a job with decisions only says no telemetry was collected,
// an unknown job is a NotFoundError (exit 1).
func TestJobReportCLI(t *testing.T) {
	telemetry := jobWith(40, db.JobGPU{UtilGPU: 90, MemPeakBytes: 60 * gb, MemTotalBytes: 80 * gb})
	decided := db.JobReport{Job: 8, User: "bob", Decisions: []db.JobDecision{{Cycle: 3, At: time.Unix(0, 0), Action: "update", Reason: "smd_optimal"}}}
	src := &reporttest.Source{Jobs: map[int64]db.JobReport{7: telemetry, 8: decided}}
	open := func() (Source, func(), error) { return src, func() {}, nil }
	tests := []struct {
		name     string
		id       int64
		json     bool
		want     []string
		notFound bool
	}{
		{"text", 7, false, []string{"Job 7 (train)  user alice", "n1    GPU-a", "90.0", "60 GB", "80 GB",
			"Advice: GPUs idle 40 % of their time"}, false},
		{"json", 7, true, []string{`"idle_pct": 40`, `"advice": "GPUs idle 40 %`, `"telemetry": true`, `"per_gpu": [`}, false},
		{"decisions only", 8, false, []string{"No GPU telemetry was collected", "update  smd_optimal"}, false},
		{"decisions only, json", 8, true, []string{`"telemetry": false`, `"advice": ""`}, false},
		{"unknown", 9, false, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := Job(context.Background(), &out, open, tt.id, JobOptions{JSON: tt.json, Loc: time.UTC})
			if tt.notFound {
				var nf *NotFoundError
				if !errors.As(err, &nf) || nf.ExitCode() != 1 {
					t.Fatalf("err = %v, want a NotFoundError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			if tt.json && !json.Valid(out.Bytes()) {
				t.Errorf("invalid JSON:\n%s", out.String())
			}
		})
	}
}

func TestSparkline(t *testing.T) {
	got := sparkline([]float64{0, 0, 50, 50, 100, 100}, 100, 3)
	if d := cmp.Diff("▁▄█", got); d != "" {
		t.Errorf("sparkline (-want +got):\n%s", d)
	}
}
