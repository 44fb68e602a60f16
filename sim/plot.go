package sim

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// maxPlotPoints bounds the points per line so plots of long runs stay small.
const maxPlotPoints = 1500

// Plot file names written by WritePlots.
const (
	PlotJCTCDF  = "jct_cdf.svg"
	PlotGPUUtil = "gpu_util.svg" // allocated GPUs over time (the name is kept for existing links)
	PlotQueue   = "queue.svg"
)

// Plot size: wide enough for the legend beside the axes.
const (
	plotWidth  = 8 * vg.Inch
	plotHeight = 4.5 * vg.Inch
)

// WritePlots writes three SVG plots of the report into dir (created if
// missing): the JCT CDF per policy, the share of GPUs allocated over time
// and the number of pending jobs over time. The legend stands beside the
// axes (never over a line), ticks fall on round values, and the time axis
// is in days when the run is longer than two days (else in hours).
func WritePlots(dir string, r *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create plot directory: %w", err)
	}
	title := filepath.Base(r.Trace) + " on " + r.Cluster
	unit, unitName := timeUnit(r)
	gpus := 0
	for _, res := range r.Results {
		gpus = max(gpus, res.GPUs)
	}
	plots := []struct {
		file, title, x, y string
		line              func(*Result) plotter.XYs
	}{
		{PlotJCTCDF, "JCT CDF, " + title, "job completion time (h, log scale)", "fraction of jobs", cdfLine},
		{PlotGPUUtil, "Allocated GPUs, " + title, "time (" + unitName + ")",
			fmt.Sprintf("allocated GPUs (%% of %d)", gpus), func(res *Result) plotter.XYs { return allocLine(res, unit) }},
		{PlotQueue, "Pending jobs, " + title, "time (" + unitName + ")", "pending jobs",
			func(res *Result) plotter.XYs { return queueLine(res, unit) }},
	}
	for _, pl := range plots {
		p := plot.New()
		p.Title.Text, p.X.Label.Text, p.Y.Label.Text = pl.title, pl.x, pl.y
		if pl.file == PlotJCTCDF {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = plot.LogTicks{Prec: -1}
			p.Y.Min, p.Y.Max = 0, 1
		} else {
			p.X.Min, p.Y.Min = 0, 0
			p.X.Tick.Marker = roundTicks{}
		}
		p.Y.Tick.Marker = roundTicks{}
		if pl.file == PlotGPUUtil {
			p.Y.Max = 100
		}
		leg := plot.NewLegend()
		for i, res := range r.Results {
			l, err := plotter.NewLine(pl.line(res))
			if err != nil {
				return fmt.Errorf("plot %s %s: %w", pl.file, res.Policy, err)
			}
			l.Color = plotutil.Color(i)
			l.Dashes = plotutil.Dashes(i)
			l.Width = vg.Points(1.2)
			p.Add(l)
			leg.Add(res.Policy, l)
		}
		if err := savePlot(p, leg, filepath.Join(dir, pl.file)); err != nil {
			return fmt.Errorf("save plot %s: %w", pl.file, err)
		}
	}
	return nil
}

// savePlot draws p with its legend in a column of its own on the right
// and writes the SVG to path.
func savePlot(p *plot.Plot, leg plot.Legend, path string) error {
	c := vgsvg.New(plotWidth, plotHeight)
	dc := draw.New(c)
	legW := leg.Rectangle(dc).Size().X + 0.25*vg.Inch
	p.Draw(draw.Crop(dc, 0, -legW, 0, 0))
	leg.Top, leg.Left = true, true
	titleH := p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	leg.Draw(draw.Crop(dc, plotWidth-legW+0.1*vg.Inch, 0, 0, -titleH-0.1*vg.Inch))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// timeUnit is the time axis unit of the over-time plots: days (86400 s)
// when the longest run is over two days, else hours.
func timeUnit(r *Report) (float64, string) {
	end := 0.0
	for _, res := range r.Results {
		if n := len(res.Series); n > 0 {
			end = max(end, res.Series[n-1].T)
		}
	}
	if end > 2*86400 {
		return 86400, "days"
	}
	return 3600, "h"
}

// roundTicks puts major ticks at multiples of 1, 2 or 5 × 10^k (between
// 4 and 10 of them) and minor ticks between, labelled without trailing
// zeros: 0, 5, 10, …, never 2.5, 12.5, 22.5.
type roundTicks struct{}

// Ticks returns the ticks of [min, max].
func (roundTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'f', -1, 64)}}
	}
	step := niceStep(hi - lo)
	minor := step / 5
	if m := step / math.Pow10(int(math.Floor(math.Log10(step)))); m == 2 {
		minor = step / 4
	}
	var ticks []plot.Tick
	for k := math.Ceil(lo/minor - 1e-9); k*minor <= hi+1e-9*step; k++ {
		v := k * minor
		if v == 0 {
			v = 0 // not -0
		}
		major := math.Abs(math.Remainder(v, step)) < 1e-9*step
		t := plot.Tick{Value: v}
		if major {
			t.Label = strconv.FormatFloat(round(v, 9), 'f', -1, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// niceStep is the 1, 2 or 5 × 10^k step giving 4 to 10 major ticks over span.
func niceStep(span float64) float64 {
	mag := math.Pow10(int(math.Floor(math.Log10(span))))
	for _, m := range []float64{0.1, 0.2, 0.5, 1, 2, 5, 10} {
		if s := m * mag; span/s <= 10 {
			return s
		}
	}
	return 10 * mag
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

// allocLine is the percentage of the cluster's GPUs allocated over time.
func allocLine(r *Result, unit float64) plotter.XYs {
	return stepLine(r.Series, unit, func(p Point) float64 { return 100 * float64(p.Busy) / float64(max(1, r.GPUs)) })
}

func queueLine(r *Result, unit float64) plotter.XYs {
	return stepLine(r.Series, unit, func(p Point) float64 { return float64(p.Pending) })
}

// plotBins is the number of time bins of the over-time plots.
const plotBins = 240

// stepLine plots the time-weighted mean of the step series y in plotBins
// equal bins from 0 to the series' end (time in units of unit seconds),
// so that long runs stay readable.
func stepLine(s []Point, unit float64, y func(Point) float64) plotter.XYs {
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
		xy[k] = plotter.XY{X: (float64(k) + 0.5) * w / unit, Y: sums[k] / w}
	}
	return xy
}
