package power_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner/power"
)

func TestReadSeries(t *testing.T) {
	tests := []struct {
		name       string
		csv        string
		opt        power.ReadOptions
		wantBusy   []int
		wantTotal  []int
		wantFilled int
	}{
		{
			name:     "nodes, Philly's column names",
			csv:      "time_s,time,active_nodes,total_nodes\n0,2017-10-03 00:00:00,3,10\n600,2017-10-03 00:10:00,4,10\n",
			wantBusy: []int{3, 4}, wantTotal: []int{10, 10},
		},
		{
			name:     "nodes: a missing interval repeats the one before",
			csv:      "time_s,busy_nodes,total_nodes\n0,3,10\n600,4,10\n1800,5,10\n",
			wantBusy: []int{3, 4, 4, 5}, wantTotal: []int{10, 10, 10, 10}, wantFilled: 1,
		},
		{
			name:     "nodes: busy above total is cut to total",
			csv:      "time_s,busy_nodes,total_nodes\n0,12,10\n600,4,10\n",
			wantBusy: []int{10, 4}, wantTotal: []int{10, 10},
		},
		{
			// vcA: 16 GPUs = 2 nodes, 9 running = 2 busy; vcB: 8 GPUs = 1
			// node, none running.
			name: "per-VC GPUs: nodes rounded up per VC, summed",
			csv: "time_s,time,vc,total_gpu_num,running_gpu_num\n0,2020-05-01 00:00:00,vcA,16,9\n0,2020-05-01 00:00:00,vcB,8,0\n" +
				"600,2020-05-01 00:10:00,vcA,16,16\n600,2020-05-01 00:10:00,vcB,8,1\n",
			wantBusy: []int{2, 3}, wantTotal: []int{3, 3},
		},
		{
			name: "per-VC GPUs, one VC",
			csv: "time_s,time,vc,total_gpu_num,running_gpu_num\n0,2020-05-01 00:00:00,vcA,16,9\n0,2020-05-01 00:00:00,vcB,8,0\n" +
				"600,2020-05-01 00:10:00,vcA,16,16\n600,2020-05-01 00:10:00,vcB,8,1\n",
			opt:      power.ReadOptions{VC: []string{"vcB"}},
			wantBusy: []int{0, 1}, wantTotal: []int{1, 1},
		},
		{
			name:     "per-VC GPUs, 4 per node",
			csv:      "time_s,vc,total_gpu_num,running_gpu_num\n0,vcA,16,9\n",
			opt:      power.ReadOptions{GPUsPerNode: 4},
			wantBusy: []int{3}, wantTotal: []int{4},
		},
		{
			// Running GPUs 16, 19, 0, 8: 2, 3, 0, 1 nodes; 3 at most.
			name:     "throughput: running GPUs rebuilt from starts and ends",
			csv:      "time_s,start_gpu_num,end_gpu_num\n0,16,0\n600,5,2\n1200,0,19\n1800,8,0\n",
			wantBusy: []int{2, 3, 0, 1}, wantTotal: []int{3, 3, 3, 3},
		},
		{
			// −8, 0: shifted by 8 to 0 and 8 GPUs.
			name:     "throughput: jobs running before the file starts",
			csv:      "time_s,start_gpu_num,end_gpu_num\n0,0,8\n600,8,0\n",
			opt:      power.ReadOptions{TotalNodes: 10},
			wantBusy: []int{0, 1}, wantTotal: []int{10, 10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, filled, err := power.ReadSeries(strings.NewReader(tt.csv), "test.csv", tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantBusy, s.Busy); diff != "" {
				t.Errorf("busy (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantTotal, s.Total); diff != "" {
				t.Errorf("total (-want +got):\n%s", diff)
			}
			if filled != tt.wantFilled || s.Step != 10*time.Minute {
				t.Errorf("filled %d step %s, want %d and 10m", filled, s.Step, tt.wantFilled)
			}
		})
	}
}

func TestReadSeriesErrors(t *testing.T) {
	tests := []struct{ name, csv, want string }{
		{"no time_s", "busy_nodes,total_nodes\n1,2\n", "no time_s column"},
		{"unknown columns", "time_s,jobs\n0,1\n", "unknown columns"},
		{"not a count", "time_s,busy_nodes,total_nodes\n0,1,2\n600,x,2\n", "line 3: column busy_nodes: \"x\" is not a count"},
		{"negative", "time_s,busy_nodes,total_nodes\n0,-1,2\n", "line 2: column busy_nodes"},
		{"bad time", "time_s,time,busy_nodes,total_nodes\n0,yesterday,1,2\n", "column time"},
		{"twice", "time_s,busy_nodes,total_nodes\n0,1,2\n0,1,2\n", "time_s 0 appears twice"},
		{"off the grid", "time_s,busy_nodes,total_nodes\n0,1,2\n600,1,2\n1500,1,2\n", "time_s 1500 is not on the 600 s grid"},
		{"no rows", "time_s,busy_nodes,total_nodes\n", "no rows"},
		{"empty file", "", "header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := power.ReadSeries(strings.NewReader(tt.csv), "x.csv", power.ReadOptions{})
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "x.csv") {
				t.Errorf("error = %v, want one naming x.csv and containing %q", err, tt.want)
			}
		})
	}
}

func readFixture(t *testing.T, name string) power.Series {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, filled, err := power.ReadSeries(f, name, power.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if filled != 0 {
		t.Errorf("%s: %d intervals filled, want none", name, filled)
	}
	return s
}

// TestFixtures reads the cuts of the shared traces (testdata/README.md
// gives their known values) and replays each with every rule and
// forecaster: the books balance and power-down pays off.
func TestFixtures(t *testing.T) {
	tests := []struct {
		file                        string
		len, first, last, max, node int
		start                       time.Time
		meanBusy                    float64
	}{
		{"philly_node_sequence_head300.csv", 300, 312, 350, 361, 420, time.Date(2017, 10, 3, 0, 0, 0, 0, time.UTC), 319.29},
		{"helios_earth_2020-05_vc_sequence_head576.csv", 36, 75, 67, 0, 107, time.Date(2020, 5, 1, 0, 0, 0, 0, time.UTC), 0},
		{"helios_venus_throughput_10min_head300.csv", 300, 17, 16, 23, 23, time.Date(2020, 4, 1, 0, 0, 0, 0, time.UTC), 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := readFixture(t, tt.file)
			got := []int{s.Len(), s.Busy[0], s.Busy[s.Len()-1], s.Total[0]}
			if diff := cmp.Diff([]int{tt.len, tt.first, tt.last, tt.node}, got); diff != "" {
				t.Errorf("len, first, last busy, nodes (-want +got):\n%s", diff)
			}
			if !s.Start.Equal(tt.start) || s.Step != 10*time.Minute {
				t.Errorf("start %s step %s", s.Start, s.Step)
			}
			peak, sum := 0, 0
			for _, b := range s.Busy {
				peak, sum = max(peak, b), sum+b
			}
			if tt.max > 0 && peak != tt.max {
				t.Errorf("max busy %d, want %d", peak, tt.max)
			}
			if mean := float64(sum) / float64(s.Len()); tt.meanBusy > 0 && (mean < tt.meanBusy-0.005 || mean > tt.meanBusy+0.005) {
				t.Errorf("mean busy %.3f, want %.2f", mean, tt.meanBusy)
			}
			busy := make([]float64, s.Len())
			for i, b := range s.Busy {
				busy[i] = float64(b)
			}
			earth, _ := power.HeliosConfig("earth")
			for _, run := range []struct {
				cfg power.Config
				fc  power.Forecaster
			}{
				{power.DefaultConfig(), power.DefaultForecaster()},
				{power.DefaultConfig(), power.Seasonal{Period: 144}},
				{earth, power.Oracle{Series: busy}},
				{earth, power.Seasonal{Period: 144}},
			} {
				res, err := power.Replay(s, run.cfg, run.fc)
				if err != nil {
					t.Fatal(err)
				}
				checkInvariants(t, s, res)
				if m := res.Summary; m.UtilAfter < m.UtilBefore || m.SavedKWh <= 0 {
					t.Errorf("%s/%s: utilization %.3f → %.3f, saved %.1f kWh", run.cfg.Rule, run.fc.Name(),
						m.UtilBefore, m.UtilAfter, m.SavedKWh)
				}
			}
		})
	}
}
