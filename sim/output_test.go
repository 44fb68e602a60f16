package sim

import (
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHumanDuration(t *testing.T) {
	for _, tc := range []struct {
		sec  float64
		want string
	}{{0, "0s"}, {42.4, "42s"}, {59.6, "1m00s"}, {725, "12m05s"}, {3600, "1h00m"}, {93480, "25h58m"},
		{47*3600 + 59*60 + 40, "48h00m"}, {2*86400 + 14*3600, "2d 14h"}, {2240428, "25d 22h"}, {-1, "-"}} {
		if got := HumanDuration(tc.sec); got != tc.want {
			t.Errorf("HumanDuration(%v) = %q, want %q", tc.sec, got, tc.want)
		}
	}
}

// Ticks fall on round values (issue 17: they fell at 2.5, 12.5, 22.5).
func TestRoundTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{0, 26, []string{"0", "5", "10", "15", "20", "25"}},
		{0.5, 23.5, []string{"5", "10", "15", "20"}},
		{0, 100, []string{"0", "10", "20", "30", "40", "50", "60", "70", "80", "90", "100"}},
		{0, 1, []string{"0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1"}},
		{0, 47, []string{"0", "5", "10", "15", "20", "25", "30", "35", "40", "45"}},
		{0, 3.2, []string{"0", "0.5", "1", "1.5", "2", "2.5", "3"}},
		{0, 1200, []string{"0", "200", "400", "600", "800", "1000", "1200"}},
	} {
		var got []string
		for _, tk := range (roundTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("ticks of [%v, %v] (-want +got):\n%s", tc.lo, tc.hi, d)
		}
	}
}

// svgText is a <text> element of a plot.
type svgText struct {
	X, Y      float64
	Transform string
	Text      string
}

// svgTexts returns the text elements of an SVG file, with their absolute
// position (gonum's SVG canvas writes transforms of the form
// translate(x, y) and rotate(...)).
func svgTexts(t *testing.T, path string) []svgText {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	var out []svgText
	var cur *svgText
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if e.Name.Local == "text" {
				cur = &svgText{}
				for _, a := range e.Attr {
					switch a.Name.Local {
					case "x":
						cur.X, _ = strconv.ParseFloat(a.Value, 64)
					case "y":
						cur.Y, _ = strconv.ParseFloat(a.Value, 64)
					case "transform":
						cur.Transform = a.Value
					}
				}
			}
		case xml.CharData:
			if cur != nil {
				cur.Text += string(e)
			}
		case xml.EndElement:
			if e.Name.Local == "text" && cur != nil {
				out = append(out, *cur)
				cur = nil
			}
		}
	}
	return out
}

var translate = regexp.MustCompile(`translate\(([-0-9.e]+),\s*([-0-9.e]+)\)`)

// absX is a text's x after its translate transform.
func absX(s svgText) float64 {
	if m := translate.FindStringSubmatch(s.Transform); m != nil {
		x, _ := strconv.ParseFloat(m[1], 64)
		return x + s.X
	}
	return s.X
}

// TestPlotsAreReadable (issue 17): the allocation plot is titled for what
// it shows, a run longer than two days is shown in days, the legend stands
// right of every tick label (never over the lines), and the y labels fit.
func TestPlotsAreReadable(t *testing.T) {
	_, rep := tinyReport(t, []string{"fifo", "sjf"})
	for _, days := range []bool{false, true} {
		if days { // stretch the series to 26 days, as the Alibaba trace runs
			for _, r := range rep.Results {
				for i := range r.Series {
					r.Series[i].T *= 26 * 86400 / r.Series[len(r.Series)-1].T
				}
			}
		}
		dir := t.TempDir()
		if err := WritePlots(dir, rep); err != nil {
			t.Fatal(err)
		}
		unit := "time (h)"
		if days {
			unit = "time (days)"
		}
		for _, tc := range []struct {
			file   string
			title  string
			labels []string
		}{
			{PlotGPUUtil, "Allocated GPUs, tiny.csv on 4x4:t4", []string{unit, "allocated GPUs (% of 16)"}},
			{PlotQueue, "Pending jobs, tiny.csv on 4x4:t4", []string{unit, "pending jobs"}},
			{PlotJCTCDF, "JCT CDF, tiny.csv on 4x4:t4", []string{"job completion time (h, log scale)", "fraction of jobs"}},
		} {
			texts := svgTexts(t, filepath.Join(dir, tc.file))
			var all []string
			legendX, rightmostTick := 1e9, 0.0
			for _, s := range texts {
				all = append(all, s.Text)
				switch {
				case s.Text == "fifo" || s.Text == "sjf":
					legendX = min(legendX, absX(s))
				case regexp.MustCompile(`^-?[0-9.]+$`).MatchString(s.Text):
					rightmostTick = max(rightmostTick, absX(s))
					if tc.file != PlotJCTCDF && strings.Contains(s.Text, ".") && !slices.Contains([]string{"0.5", "1.5", "2.5"}, s.Text) &&
						!regexp.MustCompile(`^\d+\.\d$`).MatchString(s.Text) {
						t.Errorf("%s: tick label %q is not round", tc.file, s.Text)
					}
				}
			}
			for _, want := range append([]string{tc.title}, tc.labels...) {
				if !slices.Contains(all, want) {
					t.Errorf("%s (days %v): no text %q among %q", tc.file, days, want, all)
				}
			}
			if slices.Contains(all, "GPU utilization") || strings.Contains(strings.Join(all, "|"), "utilization,") {
				t.Errorf("%s: still titled GPU utilization", tc.file)
			}
			if legendX == 1e9 || legendX <= rightmostTick {
				t.Errorf("%s: legend at x=%.1f is not right of the axes (last tick label at x=%.1f)", tc.file, legendX, rightmostTick)
			}
		}
	}
}

// TestJobRows: --jobs adds one row per trace job, in submission order,
// consistent with the statistics; without it the JSON is unchanged (the
// golden file pins that).
func TestJobRows(t *testing.T) {
	f, err := os.Open("testdata/tiny.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := ReadTrace(f, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := ParseCluster("2x4:t4")
	cfg := Config{Cluster: cs, Truth: Truth{Scaling: readScalingFile(t, "testdata/tiny_scaling.csv")}}
	plain, err := RunNamed(context.Background(), cfg, tr, "fifo")
	if err != nil {
		t.Fatal(err)
	}
	if plain.JobRows != nil {
		t.Errorf("job rows without Config.JobRows")
	}
	cfg.JobRows = true
	r, err := RunNamed(context.Background(), cfg, tr, "fifo")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.JobRows) != len(tr.Jobs) {
		t.Fatalf("%d rows for %d trace jobs", len(r.JobRows), len(tr.Jobs))
	}
	var jcts []float64
	states := map[string]int{}
	for i, row := range r.JobRows {
		tj := tr.Jobs[i]
		if row.ID != tj.ID || row.Submit != round(tj.Submit, 1) || row.GPUs != tj.GPUs {
			t.Errorf("row %d = %+v, trace job %+v", i, row, tj)
		}
		states[row.State]++
		switch row.State {
		case "done":
			if row.Start == nil || row.End == nil || row.JCT == nil || *row.Start < row.Submit || *row.End < *row.Start ||
				row.StartGPUs < 1 || round(*row.End-row.Submit, 1) != *row.JCT {
				t.Errorf("done row %d inconsistent: %+v", i, row)
			}
			jcts = append(jcts, *row.JCT)
		case "dropped":
			if row.Start != nil || row.End != nil || row.StartGPUs != 0 {
				t.Errorf("dropped row %d has times: %+v", i, row)
			}
		}
	}
	slices.Sort(jcts)
	rounded := make([]float64, len(r.JCTs))
	for i, v := range r.JCTs {
		rounded[i] = round(v, 1)
	}
	if d := cmp.Diff(rounded, jcts); d != "" || states["dropped"] != r.Dropped || states["done"] != r.Jobs {
		t.Errorf("rows vs statistics: states %v, result %d done %d dropped; JCTs (-stats +rows):\n%s", states, r.Jobs, r.Dropped, d)
	}
	// Everything else equals the run without rows.
	r.JobRows = nil
	if d := cmp.Diff(plain, r, cmp.AllowUnexported(Result{}), cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".PlanTime"
	}, cmp.Ignore())); d != "" {
		t.Errorf("--jobs changed the result (-without +with):\n%s", d)
	}
}
