package dcgm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseExporter(t *testing.T) {
	now := time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)
	gpu0 := Sample{Time: now, Host: "gpu-node-07", UUID: "GPU-8c5fd6b2-7b4b-4f6b-a3a4-0d1d1c0a1f11",
		Index: 0, Minor: 0, BusID: "00000000:07:00.0", UtilGPU: 97, UtilMem: 41, PowerW: 312.587,
		EnergyMJ: 4839272615, MemUsed: 67708 << 20, MemTotal: (67708 + 13342) << 20, Source: "exporter"}
	// gpu 1's FB_USED is a DCGM blank sentinel: missing, so total = 0 + free.
	gpu1 := Sample{Time: now, Host: "gpu-node-07", UUID: "GPU-2d3e4f50-6172-4839-9aab-bccddeeff001",
		Index: 1, Minor: 2, BusID: "00000000:0F:00.0", UtilGPU: 0, UtilMem: 0, PowerW: 61.234,
		EnergyMJ: 4127364451, MemTotal: 81050 << 20, Source: "exporter"}
	new0, new1 := gpu0, gpu1
	new0.EnergyMJ, new1.EnergyMJ = 4839272000, 4127364000 // J in 4.9+
	new0.MemUsed, new0.MemTotal = 70997983232, 70997983232+13990100992
	new1.MemTotal = 84986740736
	tests := []struct {
		name     string
		file     string
		want     []Sample
		wantJobs []JobGPU
	}{
		{name: "classic names, mJ, MiB", file: "exporter-classic.txt", want: []Sample{gpu1, gpu0}},
		{name: "4.9 names, J, ratios, bytes, lower-case hostname", file: "exporter-4.9.txt", want: []Sample{new1, new0}},
		{name: "hpc_job labels duplicate series per job", file: "exporter-hpc-job.txt", want: []Sample{gpu1, gpu0},
			wantJobs: []JobGPU{
				{Job: 4711, Host: "gpu-node-07", Index: 0, UUID: gpu0.UUID},
				{Job: 4712, Host: "gpu-node-07", Index: 0, UUID: gpu0.UUID},
				{Job: 4713, Host: "gpu-node-07", Index: 1, UUID: gpu1.UUID},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := os.Open("testdata/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, jobs, err := ParseExporter(f, "fallback", now)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got, cmpFloat); d != "" {
				t.Errorf("samples (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantJobs, jobs); d != "" {
				t.Errorf("jobs (-want +got):\n%s", d)
			}
		})
	}
}

var cmpFloat = cmp.Comparer(func(a, b float64) bool { return a == b || (a-b < 1e-9 && b-a < 1e-9) })

func TestParseExporterEdgeCases(t *testing.T) {
	now := time.Unix(0, 0).UTC()
	tests := []struct {
		name    string
		in      string
		want    []Sample
		wantErr bool
	}{
		{name: "no uuid label is skipped", in: "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5\n"},
		{name: "untyped, host from target, lower-case uuid label",
			in:   "dcgm_fi_dev_gpu_util{uuid=\"GPU-x\",gpu=\"3\"} 55\n",
			want: []Sample{{Time: now, Host: "n1", UUID: "GPU-x", Index: 3, Minor: -1, UtilGPU: 55, Source: "exporter"}}},
		{name: "help overrides unit", in: "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION energy (in J).\n" +
			"# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{UUID=\"GPU-y\"} 12.5\n",
			want: []Sample{{Time: now, Host: "n1", UUID: "GPU-y", Index: -1, Minor: -1, EnergyMJ: 12500, Source: "exporter"}}},
		{name: "malformed text", in: "DCGM_FI_DEV_GPU_UTIL{UUID=\"a\" 5\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := ParseExporter(strings.NewReader(tt.in), "n1", now)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if d := cmp.Diff(tt.want, got, cmpFloat, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestExporterSourceScrapesTargets(t *testing.T) {
	page, err := os.ReadFile("testdata/exporter-classic.txt")
	if err != nil {
		t.Fatal(err)
	}
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Write(page)
	}))
	defer ok.Close()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	}))
	defer broken.Close()
	src, err := NewExporterSource([]string{strings.TrimPrefix(ok.URL, "http://"), broken.URL + "/metrics"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := src.Snapshot(context.Background())
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("err = %v, want the broken target's status", err)
	}
	var uuids []string
	for _, s := range got {
		uuids = append(uuids, s.UUID)
	}
	want := []string{"GPU-2d3e4f50-6172-4839-9aab-bccddeeff001", "GPU-8c5fd6b2-7b4b-4f6b-a3a4-0d1d1c0a1f11"}
	if d := cmp.Diff(want, uuids); d != "" {
		t.Errorf("uuids (-want +got):\n%s", d)
	}
}

// Values no GPU can report are errors naming the series, not samples:
// a timestamp in 2200, a utilization of 1e9 %, a power of 1e9 W.
func TestParseExporterRefusesImpossibleValues(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for name, in := range map[string]string{
		"timestamp in 2200": "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-z\"} 5 7258118400000\n",
		"timestamp in 1990": "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-z\"} 5 631152000000\n",
		"utilization 1e9 %": "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-z\"} 1e9\n",
		"memory copy 101 %": "DCGM_FI_DEV_MEM_COPY_UTIL{UUID=\"GPU-z\"} 101\n",
		"power 1e9 W":       "DCGM_FI_DEV_POWER_USAGE{UUID=\"GPU-z\"} 1e9\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := ParseExporter(strings.NewReader(in), "n1", now)
			if err == nil || !strings.Contains(err.Error(), "GPU-z") {
				t.Errorf("err = %v, want an error naming the GPU", err)
			}
		})
	}
	ok := "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-z\"} 100 " + strconv.FormatInt(now.Add(-time.Minute).UnixMilli(), 10) + "\n"
	if _, _, err := ParseExporter(strings.NewReader(ok), "n1", now); err != nil {
		t.Errorf("a valid series: %v", err)
	}
}
