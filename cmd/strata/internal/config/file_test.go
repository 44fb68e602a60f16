package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "strata.toml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadFlattens(t *testing.T) {
	f, err := Load(writeFile(t, `
log_level = "debug"
interval = "30s"
only-partitions = ["a", "b"]
[slurm]
url = "http://ctl:6820"
token_file = "/etc/strata/token"
[database]
url = "postgres://strata@db1/strata"
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"log-level": "debug", "interval": "30s", "only-partitions": "a,b", "slurm-url": "http://ctl:6820",
		"slurm-token-file": "/etc/strata/token", "database-url": "postgres://strata@db1/strata",
	}
	if diff := cmp.Diff(want, f.Values); diff != "" {
		t.Errorf("flattened keys (-want +got):\n%s", diff)
	}
}

// TestLoadListsEveryProblem: secrets (also inside the database URL) and
// bad [planner] keys are all reported at once, and no secret is echoed.
func TestLoadListsEveryProblem(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"token", "[slurm]\njwt = \"eyJsecret\"\n", []string{`key "slurm-jwt" holds a secret`}},
		{"password", "[database]\npassword = \"hunter2\"\n", []string{"set database.password-file instead"}},
		{"password in URL", "[database]\nurl = \"postgres://u:hunter2@db/s\"\n", []string{`key "database-url" carries a password`}},
		{"password in DSN", "database-url = \"host=db password=hunter2\"\n", []string{`key "database-url" carries a password`}},
		{"syntax", "[slurm\nurl=1\n", []string{"read configuration"}},
		{"planner, all at once", `
[database]
url = "postgres://u:hunter2@db/s"
[planner]
energy-weight = -1
ps-comm = "fast"
long-job = 7200
long-job-share = 1.5
gpu-speed = { a100 = 0, v100 = "x" }
node-gpus = 2.5
no-such-key = 1
[[planner.limits]]
max-weight = -3
max-gpu = 4
`, []string{`key "database-url" carries a password`, "planner.energy-weight = -1: want a number ≥ 0",
			`planner.ps-comm = "fast": want "overlap" or "no-overlap"`, "planner.long-job = 7200: want a duration",
			"planner.long-job-share = 1.5: want a share", "a100: want a speed factor > 0", "v100: want a speed factor > 0",
			"planner.node-gpus = 2.5: want a whole number", "planner.no-such-key: unknown key",
			"limit 1: max-weight: want a number ≥ 0", "limit 1: max-gpu: unknown key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeFile(t, tt.body))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			for _, secret := range []string{"eyJsecret", "hunter2"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("error leaks the secret: %v", err)
				}
			}
		})
	}
}

func TestPlannerSectionToOptions(t *testing.T) {
	f, err := Load(writeFile(t, `
[planner]
energy-weight = 0.5
tardiness_weight = 2
gpu-watts = 250
tiresias-threshold-gpu-hours = 0.5
priority-base = 5000
priority-step = 3
ps-comm = "no-overlap"
worker-bandwidth-gbps = 25
ps-bandwidth-gbps = 40
intra-node-gbps = 800
inter-node-gbps = 200
burst-buffer-gbps = 16
burst-buffer-pool-gbps = 40
reference-tflops = 20
node-gpus = 4
max-options-per-job = 6
default-duration = "30m"
starvation-age = "12h"
long-job = "3h"
long-job-share = 0.5
[planner.gpu-speed]
A100 = 2.5
[planner.gpu-memory-mib]
a100 = 40960
[[planner.limits]]
partition = "gpu"
max-weight = 4
max-gpus = 16
[[planner.limits]]
account = "ml"
max-range-factor = 1
`))
	if err != nil {
		t.Fatal(err)
	}
	got := f.Planner.Options()
	want := planner.Options{EnergyWeight: 0.5, TardinessWeight: 2, GPUWatts: 250, TiresiasThreshold: 1800,
		PriorityBase: 5000, PriorityStep: 3, PriorityMode: planner.PriorityNice, KeepRequest: true, PSComm: planner.PSCommNoOverlap,
		WorkerBandwidthBps: 25e9 / 8, PSBandwidthBps: 40e9 / 8, IntraNodeBps: 100e9, InterNodeBps: 25e9,
		ReferenceFLOPS: 20e12, NodeGPUs: 4, MaxOptionsPerJob: 6, DefaultDuration: 30 * time.Minute,
		StarvationAge: 12 * time.Hour, LongJob: 3 * time.Hour, LongJobShare: 0.5,
		GPUSpeed: map[string]float64{"a100": 2.5}, GPUMemoryMB: map[string]int64{"a100": 40960}, BurstBufferBps: 2e9, BurstBufferPoolBps: 5e9,
		Limits: []planner.Limit{{Partition: "gpu", MaxWeight: 4, MaxGPUs: 16}, {Account: "ml", MaxRangeFactor: 1}}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(planner.Options{})); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("validated section gives options the planner refuses: %v", err)
	}
	if s := f.Planner.Settings(); s["planner.energy-weight"] != "0.5" || s["planner.tardiness-weight"] != "2" {
		t.Errorf("settings %v", s)
	}
}

func TestPlannerDefaultsAndLimitsOff(t *testing.T) {
	var none Planner
	if diff := cmp.Diff(planner.DefaultLimits(), none.Options().Limits); diff != "" {
		t.Errorf("no section: default caps expected (-want +got):\n%s", diff)
	}
	f, err := Load(writeFile(t, "[planner]\nlimits = []\n"))
	if err != nil {
		t.Fatal(err)
	}
	if l := f.Planner.Options().Limits; len(l) != 0 {
		t.Errorf("limits = [] should switch the caps off, got %v", l)
	}
}
