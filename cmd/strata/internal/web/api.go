package web

import (
	"io"
	"net/http"

	"github.com/strata-hpc/strata/cmd/strata/internal/report"
	"github.com/strata-hpc/strata/db"
)

// The JSON API returns the documents of the CLI's --json output, so a
// script can use either.

func (s *server) apiEnergy(w http.ResponseWriter, r *http.Request) {
	wq, err := s.parseWebQuery(r, "user")
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	a := wq.Args
	rows, err := s.cfg.Source.EnergyReport(r.Context(), db.EnergyQuery{ReportFilter: a.Filter, By: a.By, Location: a.Loc})
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	report.SortEnergyRows(rows)
	if wantCSV(r) {
		s.writeCSV(w, "energy", func(w io.Writer) error {
			return report.EnergyCSV(w, report.EnergyOutputs(rows, s.cfg.Factors), a.By, s.cfg.Factors, a.Loc)
		})
		return
	}
	s.writeAPI(w, report.NewEnergyDoc(report.Window{Start: a.Filter.From, End: a.Filter.To}, a.By,
		s.cfg.Factors, report.EnergyOutputs(rows, s.cfg.Factors)))
}

func (s *server) apiUsage(w http.ResponseWriter, r *http.Request) {
	wq, err := s.parseWebQuery(r, "user")
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	a := wq.Args
	if err := db.CheckUsageDims(a.By); err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	rows, err := s.cfg.Source.UsageReport(r.Context(), db.UsageQuery{ReportFilter: a.Filter, By: a.By})
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	if wantCSV(r) {
		s.writeCSV(w, "usage", func(w io.Writer) error { return report.UsageCSV(w, report.UsageOutputs(rows), a.By) })
		return
	}
	s.writeAPI(w, report.NewUsageDoc(report.Window{Start: a.Filter.From, End: a.Filter.To}, a.By, report.UsageOutputs(rows)))
}

func (s *server) apiDecisions(w http.ResponseWriter, r *http.Request) {
	wq, err := s.parseWebQuery(r, "")
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return
	}
	a := wq.Args
	rows, err := s.cfg.Source.DecisionReport(r.Context(), db.DecisionQuery{ReportFilter: a.Filter})
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return
	}
	if rows == nil {
		rows = []db.DecisionRow{}
	}
	if wantCSV(r) {
		s.writeCSV(w, "decisions", func(w io.Writer) error { return report.DecisionsCSV(w, rows, a.Loc) })
		return
	}
	s.writeAPI(w, report.DecisionDoc{Window: report.Window{Start: a.Filter.From, End: a.Filter.To}, Rows: rows})
}

func (s *server) apiJob(w http.ResponseWriter, r *http.Request) {
	if jr, ok := s.loadJob(w, r); ok {
		s.writeAPI(w, report.NewJobView(jr))
	}
}

// loadJob reads the job named by the request path for a page or the API,
// answering 400 or 500 itself when it cannot.
func (s *server) loadJob(w http.ResponseWriter, r *http.Request) (db.JobReport, bool) {
	id, err := pathJobID(r)
	if err != nil {
		s.fail(w, r, http.StatusBadRequest, err)
		return db.JobReport{}, false
	}
	jr, err := s.cfg.Source.JobReport(r.Context(), id, s.scopeOf(r))
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return db.JobReport{}, false
	}
	return jr, true
}

// wantCSV: the API call asks for CSV (?format=csv), the page's export.
func wantCSV(r *http.Request) bool { return r.URL.Query().Get("format") == "csv" }

// writeCSV answers with a CSV attachment named after the report.
func (s *server) writeCSV(w http.ResponseWriter, name string, write func(io.Writer) error) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="strata-`+name+`.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	if err := write(w); err != nil {
		s.cfg.Log.Warn().Err(err).Str("report", name).Msg("csv export failed")
	}
}
