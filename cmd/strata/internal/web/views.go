package web

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/cmd/strata/internal/report"
	"github.com/strata-hpc/strata/db"
)

// viewDims are the groupings with a page of their own (/by/DIM); users and
// accounts are on the overview.
var viewDims = []struct {
	Dim   db.ReportDim
	Label string
}{{db.DimPartition, "By partition"}, {db.DimNode, "By node"}, {db.DimDay, "By day"}}

// viewLink is one entry of the views bar: the overview or a /by/DIM page
// with the current window and filters.
type viewLink struct {
	Label   string
	Href    template.URL
	Current bool
}

// viewLinks links the overview and each /by/DIM page, keeping the page's
// window and filters (current names the page shown: "" = overview).
func viewLinks(r *http.Request, current db.ReportDim) []viewLink {
	q := r.URL.Query()
	q.Del("format")
	enc := q.Encode()
	with := func(path string) template.URL {
		if enc == "" {
			return template.URL(path) //nolint:gosec // a fixed path
		}
		return template.URL(path + "?" + enc) //nolint:gosec // re-encoded by url.Values
	}
	links := []viewLink{{Label: "Overview", Href: with("/"), Current: current == ""}}
	for _, v := range viewDims {
		links = append(links, viewLink{Label: v.Label, Href: with("/by/" + string(v.Dim)), Current: current == v.Dim})
	}
	return links
}

type viewData struct {
	Title    string
	Path     string // the page's own path, for the window form
	Query    webQuery
	Window   report.Window
	Views    []viewLink
	Dim      string
	Chart    *seriesChart // per-day chart of the day view
	Table    webTable
	Note     string // shown above the table ("" = none)
	JSONHref template.URL
	CSVHref  template.URL
}

// view is the page of one grouping (/by/partition, /by/node, /by/day): the
// window's energy per group as a table (per day also as a chart), each
// partition or day linking to the overview narrowed to it.
func (s *server) view(w http.ResponseWriter, r *http.Request) {
	dim := db.ReportDim(r.PathValue("dim"))
	label := ""
	for _, v := range viewDims {
		if v.Dim == dim {
			label = v.Label
		}
	}
	if label == "" {
		s.fail(w, r, http.StatusNotFound, fmt.Errorf("no view %q: want partition, node or day", dim))
		return
	}
	wq, err := s.parseWebQuery(r, "")
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	a := wq.Args
	rows, err := s.cfg.Source.EnergyReport(r.Context(), db.EnergyQuery{ReportFilter: a.Filter, By: []db.ReportDim{dim}, Location: a.Loc})
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	report.SortEnergyRows(rows)
	out := report.EnergyOutputs(rows, s.cfg.Factors)
	d := viewData{Title: "GPU energy " + strings.ToLower(label), Path: "/by/" + string(dim), Query: wq,
		Window: report.Window{Start: a.Filter.From, End: a.Filter.To}, Views: viewLinks(r, dim), Dim: string(dim)}
	api := r.URL.Query()
	api.Del("by")
	api.Set("by", string(dim))
	d.JSONHref = template.URL("/api/energy?" + api.Encode()) //nolint:gosec // re-encoded by url.Values
	api.Set("format", "csv")
	d.CSVHref = template.URL("/api/energy?" + api.Encode()) //nolint:gosec // re-encoded by url.Values
	var href func(report.EnergyOut) string
	switch dim {
	case db.DimPartition:
		href = func(o report.EnergyOut) string { return narrowed(wq, url.Values{"partition": {o.Partition}}) }
	case db.DimDay:
		c := chartOf("day", out, a.Filter.From, a.Filter.To, a.Loc)
		d.Chart = &c
		href = func(o report.EnergyOut) string {
			day := o.Bucket.In(a.Loc)
			return narrowed(wq, url.Values{"start": {day.Format("2006-01-02")}, "end": {day.AddDate(0, 0, 1).Format("2006-01-02")}})
		}
	case db.DimNode:
		named := false
		for _, o := range out {
			named = named || o.Node != ""
		}
		if len(out) > 0 && !named {
			d.Note = "The samples in this window carry no host names (a replay without hostnames), so energy cannot be split by node."
		}
	}
	d.Table = buildTable("view", "Energy "+strings.ToLower(label),
		mustSelect(report.EnergyFields(s.cfg.Factors, s.cfg.Location), append([]string{report.DimField(dim)}, s.figures()...)...), out, href)
	s.render(w, r, http.StatusOK, "view", d)
}

// narrowed is the overview's address for the page's window and filters
// with set replacing or adding parameters.
func narrowed(wq webQuery, set url.Values) string {
	v := url.Values{"start": {wq.Start}, "end": {wq.End}}
	f := wq.Args.Filter
	v["user"], v["account"], v["partition"], v["cluster"] = f.Users, f.Accounts, f.Partitions, f.Clusters
	for _, j := range f.Jobs {
		v.Add("job", strconv.FormatInt(j, 10))
	}
	for k, vals := range set {
		v[k] = vals
	}
	for k, vals := range v {
		if len(vals) == 0 {
			delete(v, k)
		}
	}
	return "/?" + v.Encode()
}

// figures are the energy columns of the overview's and views' tables (cost
// and CO2 when their factors are set).
func (s *server) figures() []string {
	f := []string{"Jobs", "GPUHours", "Energy", "EnergyRaw", "MeanUtil", "IdleEnergy", "IdlePct"}
	if s.cfg.Factors.CostPerKWh > 0 {
		f = append(f, "Cost")
	}
	if s.cfg.Factors.CO2KgPerKWh > 0 {
		f = append(f, "CO2")
	}
	return f
}

// search answers the search box: a job ID opens the job's page, anything
// else is taken as a user name and opens the overview filtered on that
// user (keeping the window the box was sent with).
func (s *server) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	term := strings.TrimSpace(q.Get("q"))
	id := strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(term), "job"), " ")
	id = strings.TrimSpace(id)
	switch {
	case term == "":
		http.Redirect(w, r, "/", http.StatusSeeOther)
	case isJobID(id):
		http.Redirect(w, r, "/job/"+id, http.StatusSeeOther)
	default:
		v := url.Values{"user": {term}}
		for _, k := range []string{"start", "end"} {
			if q.Get(k) != "" {
				v.Set(k, q.Get(k))
			}
		}
		http.Redirect(w, r, "/?"+v.Encode(), http.StatusSeeOther)
	}
}

func isJobID(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && n > 0
}
