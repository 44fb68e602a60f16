package sim

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// maxPlotPoints bounds the points per line so plots of long runs stay small.
const maxPlotPoints = 1500

// Plot file names written by WritePlots.
const (
	PlotJCTCDF  = "jct_cdf.svg"
	PlotGPUUtil = "gpu_util.svg"
	PlotQueue   = "queue.svg"
)

// WritePlots writes three SVG plots of the report into dir (created if
// missing): the JCT CDF per policy, GPU utilization (allocated fraction)
// over time and the number of pending jobs over time.
func WritePlots(dir string, r *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create plot directory: %w", err)
	}
	title := filepath.Base(r.Trace) + " on " + r.Cluster
	plots := []struct {
		file, title, x, y string
		line              func(*Result) plotter.XYs
	}{
		{PlotJCTCDF, "JCT CDF, " + title, "job completion time (h, log scale)", "fraction of jobs", cdfLine},
		{PlotGPUUtil, "GPU utilization, " + title, "time (h)", "allocated GPUs / total (mean per bin)", utilLine},
		{PlotQueue, "Pending jobs, " + title, "time (h)", "pending jobs (mean per bin)", queueLine},
	}
	for _, pl := range plots {
		p := plot.New()
		p.Title.Text, p.X.Label.Text, p.Y.Label.Text = pl.title, pl.x, pl.y
		if pl.file == PlotJCTCDF {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		p.Legend.Top = pl.file != PlotJCTCDF
		for i, res := range r.Results {
			l, err := plotter.NewLine(pl.line(res))
			if err != nil {
				return fmt.Errorf("plot %s %s: %w", pl.file, res.Policy, err)
			}
			l.Color = plotutil.Color(i)
			l.Dashes = plotutil.Dashes(i)
			l.Width = vg.Points(1.2)
			p.Add(l)
			p.Legend.Add(res.Policy, l)
		}
		if err := p.Save(7*vg.Inch, 4*vg.Inch, filepath.Join(dir, pl.file)); err != nil {
			return fmt.Errorf("save plot %s: %w", pl.file, err)
		}
	}
	return nil
}

// cdfLine is the empirical CDF of the JCTs (hours), thinned.
func cdfLine(r *Result) plotter.XYs {
	n := len(r.JCTs)
	step := max(1, n/maxPlotPoints)
	var xy plotter.XYs
	for i := 0; i < n; i += step {
		xy = append(xy, plotter.XY{X: max(r.JCTs[i], 1) / 3600, Y: float64(i+1) / float64(n)})
	}
	if n > 0 && (n-1)%step != 0 {
		xy = append(xy, plotter.XY{X: max(r.JCTs[n-1], 1) / 3600, Y: 1})
	}
	if len(xy) == 0 {
		xy = plotter.XYs{{X: 1.0 / 3600, Y: 0}}
	}
	return xy
}

func utilLine(r *Result) plotter.XYs {
	return stepLine(r.Series, func(p Point) float64 { return float64(p.Busy) / float64(max(1, r.GPUs)) })
}

func queueLine(r *Result) plotter.XYs {
	return stepLine(r.Series, func(p Point) float64 { return float64(p.Pending) })
}

// plotBins is the number of time bins of the over-time plots.
const plotBins = 240

// stepLine plots the time-weighted mean of the step series y in plotBins
// equal bins from 0 to the series' end (time in hours), so that long runs
// stay readable.
func stepLine(s []Point, y func(Point) float64) plotter.XYs {
	if len(s) == 0 || s[len(s)-1].T <= 0 {
		return plotter.XYs{{X: 0, Y: 0}}
	}
	end := s[len(s)-1].T
	w := end / plotBins
	sums := make([]float64, plotBins)
	for i := 0; i+1 < len(s); i++ {
		v := y(s[i])
		for k := max(0, int(s[i].T/w)); k < plotBins; k++ {
			lo, hi := float64(k)*w, float64(k+1)*w
			if k == plotBins-1 {
				hi = end
			}
			if s[i].T >= hi && k < plotBins-1 {
				continue
			}
			if overlap := min(hi, s[i+1].T) - max(lo, s[i].T); overlap > 0 {
				sums[k] += v * overlap
			}
			if s[i+1].T <= hi {
				break
			}
		}
	}
	xy := make(plotter.XYs, plotBins)
	for k := range xy {
		xy[k] = plotter.XY{X: (float64(k) + 0.5) * w / 3600, Y: sums[k] / w}
	}
	return xy
}
