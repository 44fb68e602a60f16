package hint

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/planner"
)

// Records are the site's ended jobs the spread is learnt from (the
// planner's calibration records: each job's uncalibrated modelled run time
// at the size it ran at, and its real one); *db.Store implements it.
type Records interface {
	CalibrationJobs(ctx context.Context, cluster string, since time.Time, limit int) ([]db.CalibrationJob, error)
}

const (
	// MinSiteRuns is the number of ended runs of a model on a GPU type
	// the site's records need before their spread replaces the catalog's.
	MinSiteRuns = 5
	// SiteWindow is how far back the records are read.
	SiteWindow = 90 * 24 * time.Hour
	// sitePages bounds the records read, siteLimit at a time.
	sitePages = 5
	// unknownBand: without a known spread, a time limit is called too
	// short only below the modelled run / unknownBand (a factor of two,
	// the yardstick of `strata report predictions`).
	unknownBand = 2.0
)

// Spread is how far the real run may fall from the modelled one, as
// multiples of it (real / modelled), and where that comes from.
type Spread struct {
	// Source: "site" (the site's ended runs of this model on this GPU
	// type), "catalog" (a published range, e.g. the MFU range) or "none".
	Source string `json:"source"`
	// LowRatio..HighRatio: 90 % of the site's runs ran in this range (the
	// catalog's published range); 0 for none.
	LowRatio  float64 `json:"low_ratio,omitempty"`
	HighRatio float64 `json:"high_ratio,omitempty"`
	// MedianRatio is the site's median real / modelled run time.
	MedianRatio float64 `json:"median_ratio,omitempty"`
	// Runs are the ended runs of the model on the GPU type in the records
	// read (since Since); TimedOut more ran into their time limit (their
	// real time is a lower bound, not counted in the range).
	Runs     int       `json:"runs"`
	TimedOut int       `json:"timed_out,omitempty"`
	Since    time.Time `json:"since,omitzero"`
	// WarnBelow: a time limit below WarnBelow × the modelled run is one
	// the model is confident is too short (LowRatio, or 1/2 with none).
	WarnBelow float64 `json:"warn_below_ratio"`
	Text      string  `json:"text"`
}

// gpuKey names a GPU type as LookupGPU does (a100-80gb is a100); an
// unknown type by its lower-case name.
func gpuKey(t string) string {
	if g, ok := planner.LookupGPU(t); ok {
		return g.Name
	}
	return strings.ToLower(strings.TrimSpace(t))
}

// siteLimit is the page size of the records read (a variable for tests).
var siteLimit = 20000

// spreadOf is the spread of the job's run: the site's records when they
// hold MinSiteRuns ended runs of its model on its GPU type; else the
// catalog's published range (by); else none, saying why.
func spreadOf(h planner.Hints, by *planner.TimingBasis, o Options) Spread {
	site, why := siteSpread(h, o)
	if site.Runs >= MinSiteRuns {
		return site
	}
	if by != nil && by.SpreadLow > 0 {
		src := by.Source
		if i := strings.Index(src, ";"); i > 0 {
			src = src[:i] // the range's own source, not the GPU's datasheet
		}
		return Spread{Source: "catalog", LowRatio: by.SpreadLow, HighRatio: by.SpreadHigh, Runs: site.Runs, TimedOut: site.TimedOut,
			Since: site.Since, WarnBelow: by.SpreadLow,
			Text: fmt.Sprintf("%.2f–%.2f × the modelled time, from the catalog's published range (%s); %s", by.SpreadLow, by.SpreadHigh, src, why)}
	}
	return Spread{Source: "none", Runs: site.Runs, TimedOut: site.TimedOut, Since: site.Since, WarnBelow: 1 / unknownBand,
		Text: fmt.Sprintf("not known: %s, and the catalog gives no range for this rule; a --time is called too short only below half the modelled run", why)}
}

// siteSpread reads the site's records of h's model on o.GPUType; with
// fewer than MinSiteRuns ended runs, why says so (or why none were read).
func siteSpread(h planner.Hints, o Options) (Spread, string) {
	switch {
	case o.RecordsErr != nil:
		return Spread{}, fmt.Sprintf("the site's records could not be read (%v)", o.RecordsErr)
	case o.Records == nil:
		return Spread{}, "the site's records are not read (no database: --database-url, or [database] url in the configuration)"
	case h.Model == "":
		return Spread{}, "the site's records are kept per catalog model, and this hint names none"
	}
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	since := o.Now.Add(-SiteWindow).UTC()
	jobs, err := readRecords(ctx, o.Records, since)
	if err != nil {
		return Spread{}, fmt.Sprintf("the site's records could not be read (%v)", err)
	}
	gpu := gpuKey(o.GPUType)
	sp := Spread{Source: "site", Since: since}
	var ratios []float64
	for _, j := range jobs {
		if j.Model != h.Model || gpuKey(j.GPUType) != gpu || j.ModelSeconds <= 0 || j.RealSeconds <= 0 {
			continue
		}
		if j.TimedOut {
			sp.TimedOut++
			continue
		}
		ratios = append(ratios, j.RealSeconds/j.ModelSeconds)
	}
	sp.Runs = len(ratios)
	on := h.Model + " on " + cmp.Or(gpu, "an untyped GPU")
	day := since.Format(time.DateOnly)
	timedOut := ""
	if sp.TimedOut > 0 {
		timedOut = fmt.Sprintf("; %d more ran into their time limit (not counted: their real time is unknown)", sp.TimedOut)
	}
	if sp.Runs < MinSiteRuns {
		if sp.Runs == 0 {
			return sp, fmt.Sprintf("no ended run of %s here yet (since %s)%s", on, day, timedOut)
		}
		return sp, fmt.Sprintf("only %d ended run(s) of %s here since %s (%d needed)%s", sp.Runs, on, day, MinSiteRuns, timedOut)
	}
	slices.Sort(ratios)
	sp.LowRatio, sp.HighRatio, sp.MedianRatio = rank(ratios, 0.05), rank(ratios, 0.95), rank(ratios, 0.5)
	sp.WarnBelow = sp.LowRatio
	sp.Text = fmt.Sprintf("90 %% of the %d ended runs of %s here since %s ran %.2f–%.2f × the modelled time (median %.2f ×)%s",
		sp.Runs, on, day, sp.LowRatio, sp.HighRatio, sp.MedianRatio, timedOut)
	return sp, ""
}

// readRecords reads the ended jobs since since, siteLimit at a time (the
// query returns the oldest first), at most sitePages pages.
func readRecords(ctx context.Context, r Records, since time.Time) ([]db.CalibrationJob, error) {
	var out []db.CalibrationJob
	for range sitePages {
		page, err := r.CalibrationJobs(ctx, "", since, siteLimit)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if len(page) < siteLimit {
			break
		}
		since = page[len(page)-1].End // jobs ending at that very instant on the next page are lost
	}
	return out, nil
}

// rank is the q-quantile of sorted xs (nearest rank).
func rank(xs []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

// applySpread sets each run's low and high seconds from sp.
func applySpread(runs []Run, sp Spread) {
	if sp.LowRatio <= 0 {
		return
	}
	for i := range runs {
		runs[i].LowSeconds, runs[i].HighSeconds = runs[i].Seconds*sp.LowRatio, runs[i].Seconds*sp.HighRatio
	}
}
