package web

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/cmd/strata/internal/report/reporttest"
	"github.com/strata-hpc/strata/db"
)

// The job view: a job with telemetry shows its advice and each GPU (node
// names linking to the node view over the job's run); a job with decisions
// but no telemetry answers 200 with its decisions and says no telemetry was
// collected; an unknown job is 404.
func TestJobView(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	gpu := db.JobGPU{UUID: "GPU-aaaa", Host: "node7", GPUSeconds: 3600, EnergyJ: 3600 * 100, UtilGPU: 12,
		MemPeakBytes: 3e9, MemTotalBytes: 80e9, PowerW: 100,
		Series: []db.GPUPoint{{T: t0, UtilGPU: 12, MemUsedBytes: 3e9, PowerW: 100}}}
	src := &reporttest.Source{Jobs: map[int64]db.JobReport{
		7: {Job: 7, User: "alice", Start: t0, End: t0.Add(time.Hour),
			GPUs:   []db.JobGPUSpan{{Host: "node7", UUID: "GPU-aaaa", From: t0, To: t0.Add(time.Hour)}},
			Totals: db.EnergyRow{Jobs: 1, GPUSeconds: 3600, EnergyJ: 3600 * 100, UtilGPU: 12},
			Series: []db.JobPoint{{T: t0, UtilGPU: 12, PowerW: 100}}, PerGPU: []db.JobGPU{gpu}},
		8: {Job: 8, User: "bob", Name: "queued", Decisions: []db.JobDecision{{Cycle: 3, At: t0, Action: "defer", Reason: "smd_optimal"}}},
	}}
	srv := newTestWeb(t, src, nil)
	tests := []struct {
		name, path string
		status     int
		want       []string
		not        []string
	}{
		{"telemetry", "/job/7", 200, []string{
			`id="advice"`, "GPU utilization 12 %: ask for fewer GPUs or check the input pipeline",
			`<table id="pergpu">`, "GPU-aaaa", "3.0", "80.0",
			`<a href="/by/node?end=2026-11-20T13%3A00%3A01&amp;start=2026-11-20T12%3A00%3A00">node7</a>`},
			[]string{`id="no-telemetry"`}},
		{"decisions only", "/job/8", 200, []string{`id="no-telemetry"`, "No GPU telemetry was collected", "defer",
			`<a href="/api/decisions?end=2026-11-20T12%3A00%3A01&amp;start=2026-11-20T12%3A00%3A00">3</a>`},
			[]string{`id="advice"`, `id="chart-job"`}},
		{"unknown", "/job/9", 404, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, page := get(t, srv.URL+tt.path)
			if code != tt.status {
				t.Fatalf("GET %s = %d, want %d", tt.path, code, tt.status)
			}
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(page, w) {
					t.Errorf("page has %q", w)
				}
			}
		})
	}
	_, _, body := get(t, srv.URL+"/api/job/8")
	var doc struct {
		Telemetry bool   `json:"telemetry"`
		Advice    string `json:"advice"`
		Decisions []any  `json:"decisions"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || doc.Telemetry || doc.Advice != "" || len(doc.Decisions) != 1 {
		t.Errorf("/api/job/8 = %s (%v), want no telemetry, no advice, 1 decision", body, err)
	}
}
