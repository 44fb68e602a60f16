package web

import (
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/strata-hpc/strata/cmd/strata/internal/report"
	"github.com/strata-hpc/strata/db"
)

// webTable is a server-rendered table: the same cells the CLI prints.
type webTable struct {
	ID, Caption string
	Cols        []webCol
	Rows        []webRow
	Empty       string
}

type webCol struct {
	Name, Header string
	Num          bool // every cell is a number: right-aligned
}

type webRow struct {
	Cells []webCell
	Href  string // link for the first cell ("" = none)
}

// webCell is one cell; Num right-aligns numbers.
type webCell struct {
	Text string
	Num  bool
}

func isNumeric(v string) bool {
	_, err := strconv.ParseFloat(v, 64)
	return err == nil
}

func buildTable[R any](id, caption string, cols []report.Selected[R], rows []R, href func(R) string) webTable {
	t := webTable{ID: id, Caption: caption, Empty: "No data in this window."}
	for _, c := range cols {
		t.Cols = append(t.Cols, webCol{Name: c.Name, Header: c.Header})
	}
	for _, r := range rows {
		row := webRow{}
		for _, c := range cols {
			v := c.Value(r)
			row.Cells = append(row.Cells, webCell{Text: v, Num: isNumeric(v)})
		}
		if href != nil {
			row.Href = href(r)
		}
		t.Rows = append(t.Rows, row)
	}
	for i := range t.Cols {
		t.Cols[i].Num = len(t.Rows) > 0
		for _, r := range t.Rows {
			t.Cols[i].Num = t.Cols[i].Num && (r.Cells[i].Num || r.Cells[i].Text == "")
		}
	}
	return t
}

func mustSelect[R any](all []report.Field[R], names ...string) []report.Selected[R] {
	var out []report.Selected[R]
	for _, n := range names {
		if f, ok := report.LookupField(all, n); ok {
			out = append(out, report.Selected[R]{Field: f})
		}
	}
	return out
}

// seriesChart is the JSON the overview chart reads (unix seconds).
type seriesChart struct {
	Step string    `json:"step"`
	From int64     `json:"from"` // window, for the x axis
	To   int64     `json:"to"`
	X    []int64   `json:"x"`
	KWh  []float64 `json:"kwh"`
	GPUh []float64 `json:"gpuh"`
	Idle []float64 `json:"idle_kwh"`
	TZ   string    `json:"tz"` // IANA zone of the axis labels (the tables' zone)
}

type overviewData struct {
	Title    string
	Path     string // the page's own path, for the window form
	Views    []viewLink
	Query    webQuery
	Window   report.Window
	Total    report.EnergyOut
	HasTotal bool
	Step     string
	Chart    seriesChart
	Tables   []webTable
	Stale    string // non-empty: the rollups lag behind the GPU activity
	// JSONHref and CSVHref export what the page shows: the same window and
	// filters, as JSON (the CLI's --json document) and CSV.
	JSONHref, CSVHref template.URL
}

func (s *server) overview(w http.ResponseWriter, r *http.Request) {
	wq, err := s.parseWebQuery(r, "")
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	ctx, f, a := r.Context(), s.cfg.Factors, wq.Args
	energy := func(by ...db.ReportDim) ([]report.EnergyOut, error) {
		rows, err := s.cfg.Source.EnergyReport(ctx, db.EnergyQuery{ReportFilter: a.Filter, By: by, Location: a.Loc})
		report.SortEnergyRows(rows)
		return report.EnergyOutputs(rows, f), err
	}
	d := overviewData{Title: "GPU energy", Path: "/", Views: viewLinks(r, ""), Query: wq,
		Window: report.Window{Start: a.Filter.From, End: a.Filter.To}, Step: "hour"}
	q := r.URL.Query()
	d.JSONHref = template.URL("/api/energy?" + q.Encode()) //nolint:gosec // re-encoded by url.Values
	q.Set("format", "csv")
	d.CSVHref = template.URL("/api/energy?" + q.Encode()) //nolint:gosec // re-encoded by url.Values
	if a.Filter.To.Sub(a.Filter.From) > 3*24*time.Hour {
		d.Step = "day"
	}
	total, err1 := energy()
	series, err2 := energy(db.ReportDim(d.Step))
	users, err3 := energy(db.DimUser)
	accounts, err4 := energy(db.DimAccount)
	jobs, err5 := energy(db.DimJob)
	decisions, err6 := s.cfg.Source.DecisionReport(ctx, db.DecisionQuery{ReportFilter: a.Filter})
	for _, err := range []error{err1, err2, err3, err4, err5, err6} {
		if err != nil {
			s.fail(w, r, http.StatusInternalServerError, err)
			return
		}
	}
	if len(total) > 0 {
		d.Total, d.HasTotal = total[0], true
	}
	d.Stale = report.Staleness(ctx, s.cfg.Source, a.Filter.To, a.Loc)
	d.Chart = chartOf(d.Step, series, a.Filter.From, a.Filter.To, a.Loc)
	d.Tables = s.overviewTables(wq, d.Step, series, users, accounts, idleJobs(jobs, 10), decisions)
	s.render(w, r, http.StatusOK, "overview", d)
}

// chartOf lays the series on every bucket of the window (zero where
// nothing ran), so that the chart's time axis spans the window.
func chartOf(step string, rows []report.EnergyOut, from, to time.Time, loc *time.Location) seriesChart {
	c := seriesChart{Step: step, From: from.Unix(), To: to.Unix(),
		X: []int64{}, KWh: []float64{}, GPUh: []float64{}, Idle: []float64{}, TZ: zoneName(loc)}
	byBucket := map[int64]report.EnergyOut{}
	for _, r := range rows {
		byBucket[r.Bucket.Unix()] = r
	}
	b := from.In(loc).Truncate(time.Hour)
	if step == "day" {
		y, m, d := from.In(loc).Date()
		b = time.Date(y, m, d, 0, 0, 0, 0, loc)
	}
	for n := 0; b.Before(to) && n < 2000; n++ {
		r := byBucket[b.Unix()]
		c.X = append(c.X, b.Unix())
		c.KWh = append(c.KWh, r.EnergyKWh)
		c.GPUh = append(c.GPUh, r.GPUHours)
		c.Idle = append(c.Idle, r.IdleEnergyKWh)
		if step == "day" {
			b = b.AddDate(0, 0, 1)
		} else {
			b = b.Add(time.Hour)
		}
	}
	return c
}

// zoneName is loc's IANA name for the browser ("" for the process's
// unnamed local zone: the browser's own zone is used then).
func zoneName(loc *time.Location) string {
	if loc == nil || loc == time.Local || loc.String() == "Local" {
		return ""
	}
	return loc.String()
}

// idleJobs returns the n jobs that wasted the most energy on idle GPUs.
func idleJobs(jobs []report.EnergyOut, n int) []report.EnergyOut {
	var out []report.EnergyOut
	for _, j := range jobs {
		if j.IdleEnergyJ > 0 {
			out = append(out, j)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].IdleEnergyJ != out[j].IdleEnergyJ {
			return out[i].IdleEnergyJ > out[j].IdleEnergyJ
		}
		return out[i].Job < out[j].Job
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func (s *server) overviewTables(wq webQuery, step string, series, users, accounts, idle []report.EnergyOut,
	decisions []db.DecisionRow) []webTable {
	f, loc := s.cfg.Factors, s.cfg.Location
	all := report.EnergyFields(f, loc)
	figures := s.figures()
	jobHref := func(r report.EnergyOut) string { return "/job/" + strconv.FormatInt(r.Job, 10) }
	// Users and accounts link to the overview filtered on them.
	filtered := func(key string, value func(report.EnergyOut) string) func(report.EnergyOut) string {
		return func(r report.EnergyOut) string {
			v := url.Values{"start": {wq.Start}, "end": {wq.End}, key: {value(r)}}
			return "/?" + v.Encode()
		}
	}
	userHref := filtered("user", func(r report.EnergyOut) string { return r.User })
	accountHref := filtered("account", func(r report.EnergyOut) string { return r.Account })
	return []webTable{
		buildTable("users", "Energy by user", mustSelect(all, append([]string{"User"}, figures...)...), users, userHref),
		buildTable("accounts", "Energy by account", mustSelect(all, append([]string{"Account"}, figures...)...), accounts, accountHref),
		buildTable("idle", "Idle-GPU waste: jobs with the most energy on allocated GPUs below 5 % utilization",
			mustSelect(all, "Job", "JobName", "User", "GPUHours", "Energy", "IdleGPUHours", "IdleEnergy", "IdlePct"), idle, jobHref),
		buildTable("decisions", "Planner decisions by action and reason",
			mustSelect(report.DecisionFields(loc), report.DecisionDefaults...), decisions, nil),
		buildTable("series", "Energy and GPU-hours over time (chart data)",
			mustSelect(all, report.DimField(db.ReportDim(step)), "Jobs", "GPUHours", "Energy", "IdleEnergy"), series, nil),
	}
}

type jobData struct {
	Title  string
	Job    db.JobReport
	Facts  [][2]string
	Chart  jobChart
	Tables []webTable
	// Advice is the job view's line of advice (report.Advice).
	Advice string
	// Telemetry: GPU assignments were recorded (else only decisions).
	Telemetry bool
}

type jobChart struct {
	X     []int64   `json:"x"`
	Util  []float64 `json:"util"`
	Power []float64 `json:"power"`
	TZ    string    `json:"tz"` // IANA zone of the axis labels (the tables' zone)
}

func (s *server) jobPage(w http.ResponseWriter, r *http.Request) {
	jr, ok := s.loadJob(w, r)
	if !ok {
		return
	}
	loc := s.cfg.Location
	ts := func(t time.Time) string { return report.FmtBucket(t, loc, "2006-01-02 15:04:05") }
	d := jobData{Title: "Job " + strconv.FormatInt(jr.Job, 10), Job: jr, Advice: report.Advice(jr), Telemetry: len(jr.GPUs) > 0,
		Chart: jobChart{X: []int64{}, Util: []float64{}, Power: []float64{}, TZ: zoneName(loc)}}
	d.Facts = [][2]string{{"Name", jr.Name}, {"User", jr.User}, {"Account", jr.Account},
		{"Partition", jr.Partition}, {"Submitted", ts(jr.Submit)}, {"Started", ts(jr.Start)}, {"Ended", ts(jr.End)}}
	if !jr.Start.IsZero() && !jr.Submit.IsZero() {
		d.Facts = append(d.Facts, [2]string{"Waited", report.FmtDuration(jr.Start.Sub(jr.Submit).Seconds())})
	}
	if !jr.End.IsZero() && !jr.Start.IsZero() {
		d.Facts = append(d.Facts, [2]string{"Ran", report.FmtDuration(jr.End.Sub(jr.Start).Seconds())})
	}
	for _, p := range jr.Series {
		d.Chart.X = append(d.Chart.X, p.T.Unix())
		d.Chart.Util = append(d.Chart.Util, p.UtilGPU)
		d.Chart.Power = append(d.Chart.Power, p.PowerW)
	}
	d.Tables = s.jobTables(jr)
	s.render(w, r, http.StatusOK, "job", d)
}

func (s *server) jobTables(jr db.JobReport) []webTable {
	loc := s.cfg.Location
	ts := func(t time.Time) string { return report.FmtBucket(t, loc, "2006-01-02T15:04:05") }
	totals := report.EnergyOutputs([]db.EnergyRow{jr.Totals}, s.cfg.Factors)
	nodeHref := s.nodeHref(jr)
	gpuCols := []report.Field[db.JobGPUSpan]{
		{Name: "Node", Header: "Node", Value: func(g db.JobGPUSpan) string { return g.Host }},
		{Name: "UUID", Header: "GPU UUID", Value: func(g db.JobGPUSpan) string { return g.UUID }},
		{Name: "From", Header: "From", Value: func(g db.JobGPUSpan) string { return ts(g.From) }},
		{Name: "To", Header: "To", Value: func(g db.JobGPUSpan) string { return ts(g.To) }},
	}
	decCols := []report.Field[db.JobDecision]{
		{Name: "Cycle", Header: "Cycle", Value: func(d db.JobDecision) string { return strconv.FormatInt(d.Cycle, 10) }},
		{Name: "At", Header: "At", Value: func(d db.JobDecision) string { return ts(d.At) }},
		{Name: "Action", Header: "Action", Value: func(d db.JobDecision) string { return d.Action }},
		{Name: "Reason", Header: "Reason", Value: func(d db.JobDecision) string { return d.Reason }},
		{Name: "Detail", Header: "Outcome / detail", Value: func(d db.JobDecision) string { return d.Detail }},
	}
	pointCols := []report.Field[db.JobPoint]{
		{Name: "Time", Header: "Time", Value: func(p db.JobPoint) string { return ts(p.T) }},
		{Name: "Util", Header: "MeanUtil(%)", Value: func(p db.JobPoint) string { return report.FmtPct(p.UtilGPU) }},
		{Name: "Power", Header: "Power(W)", Value: func(p db.JobPoint) string { return report.FmtFloat(p.PowerW, 1) }},
	}
	figures := []string{"GPUHours", "Energy", "EnergyRaw", "MeanUtil", "IdleGPUHours", "IdleEnergy", "IdlePct"}
	if s.cfg.Factors.CostPerKWh > 0 {
		figures = append(figures, "Cost")
	}
	if s.cfg.Factors.CO2KgPerKWh > 0 {
		figures = append(figures, "CO2")
	}
	return []webTable{
		buildTable("energy", "Energy", mustSelect(report.EnergyFields(s.cfg.Factors, loc), figures...), totals, nil),
		buildTable("gpus", "GPUs held", mustSelect(gpuCols, "Node", "UUID", "From", "To"), jr.GPUs,
			func(g db.JobGPUSpan) string { return nodeHref }),
		withEmpty(buildTable("decisions", "What the planner decided and why",
			mustSelect(decCols, "Cycle", "At", "Action", "Reason", "Detail"), jr.Decisions,
			func(d db.JobDecision) string { return s.decisionsHref(d) }), "The planner made no decision about this job."),
		buildTable("series", "Utilization and power over time (chart data)",
			mustSelect(pointCols, "Time", "Util", "Power"), jr.Series, nil),
		buildTable("pergpu", "Each GPU: utilization, memory, power, energy, idle share",
			mustSelect(perGPUFields(), "Node", "UUID", "Util", "MemPeak", "MemTotal", "Power", "Energy", "Idle"), jr.PerGPU,
			func(db.JobGPU) string { return nodeHref }),
		buildTable("gpuseries", "Each GPU over time (utilization, memory used, power)",
			mustSelect(gpuPointFields(ts), "UUID", "Time", "Util", "Mem", "Power"), flattenGPUSeries(jr.PerGPU), nil),
	}
}

func withEmpty(t webTable, empty string) webTable {
	t.Empty = empty
	return t
}

// nodeHref links a job's node names to the node view over the job's run
// (what each node's GPUs drew meanwhile).
func (s *server) nodeHref(jr db.JobReport) string {
	from, to := jr.Start, jr.End
	for _, g := range jr.GPUs {
		if from.IsZero() || g.From.Before(from) {
			from = g.From
		}
		if g.To.After(to) {
			to = g.To
		}
	}
	if from.IsZero() {
		return "/by/node"
	}
	if to.IsZero() || !to.After(from) {
		to = s.cfg.Now()
	}
	f := "2006-01-02T15:04:05"
	return "/by/node?" + url.Values{"start": {from.In(s.cfg.Location).Format(f)},
		"end": {to.Add(time.Second).In(s.cfg.Location).Format(f)}}.Encode()
}

// decisionsHref links a decision to the decisions of its cycle's minute
// (the JSON document of the planner-decision report around it).
func (s *server) decisionsHref(d db.JobDecision) string {
	f := "2006-01-02T15:04:05"
	return "/api/decisions?" + url.Values{"start": {d.At.In(s.cfg.Location).Format(f)},
		"end": {d.At.Add(time.Second).In(s.cfg.Location).Format(f)}}.Encode()
}

func perGPUFields() []report.Field[db.JobGPU] {
	gb := func(b int64) string {
		if b <= 0 {
			return ""
		}
		return report.FmtFloat(float64(b)/1e9, 1)
	}
	return []report.Field[db.JobGPU]{
		{Name: "Node", Header: "Node", Value: func(g db.JobGPU) string { return g.Host }},
		{Name: "UUID", Header: "GPU UUID", Value: func(g db.JobGPU) string { return g.UUID }},
		{Name: "Util", Header: "MeanUtil(%)", Value: func(g db.JobGPU) string { return report.FmtPct(g.UtilGPU) }},
		{Name: "MemPeak", Header: "MemPeak(GB)", Value: func(g db.JobGPU) string { return gb(g.MemPeakBytes) }},
		{Name: "MemTotal", Header: "MemTotal(GB)", Value: func(g db.JobGPU) string { return gb(g.MemTotalBytes) }},
		{Name: "Power", Header: "MeanPower(W)", Value: func(g db.JobGPU) string { return report.FmtFloat(g.PowerW, 1) }},
		{Name: "Energy", Header: "Energy(kWh)", Value: func(g db.JobGPU) string { return report.FmtKWh(g.EnergyJ / 3.6e6) }},
		{Name: "Idle", Header: "Idle(%)", Value: func(g db.JobGPU) string {
			if g.GPUSeconds <= 0 {
				return ""
			}
			return report.FmtPct(100 * g.IdleGPUSeconds / g.GPUSeconds)
		}},
	}
}

// gpuPoint is one GPU's bin, for the per-GPU data table.
type gpuPoint struct {
	UUID string
	db.GPUPoint
}

func flattenGPUSeries(gs []db.JobGPU) []gpuPoint {
	var out []gpuPoint
	for _, g := range gs {
		for _, p := range g.Series {
			out = append(out, gpuPoint{UUID: g.UUID, GPUPoint: p})
		}
	}
	return out
}

func gpuPointFields(ts func(time.Time) string) []report.Field[gpuPoint] {
	return []report.Field[gpuPoint]{
		{Name: "UUID", Header: "GPU UUID", Value: func(p gpuPoint) string { return p.UUID }},
		{Name: "Time", Header: "Time", Value: func(p gpuPoint) string { return ts(p.T) }},
		{Name: "Util", Header: "Util(%)", Value: func(p gpuPoint) string { return report.FmtPct(p.UtilGPU) }},
		{Name: "Mem", Header: "MemUsed(GB)", Value: func(p gpuPoint) string { return report.FmtFloat(float64(p.MemUsedBytes)/1e9, 2) }},
		{Name: "Power", Header: "Power(W)", Value: func(p gpuPoint) string { return report.FmtFloat(p.PowerW, 1) }},
	}
}

func (s *server) funcs() template.FuncMap {
	return template.FuncMap{
		"kwh":  report.FmtKWh,
		"gpuh": report.FmtGPUh,
		"pct":  report.FmtPct,
		"ts":   func(t time.Time) string { return report.FmtBucket(t, s.cfg.Location, "2006-01-02 15:04") },
	}
}
