package web

import (
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
	s.writeAPI(w, report.EnergyDoc{Window: report.Window{Start: a.Filter.From, End: a.Filter.To}, By: a.By,
		Factors: s.cfg.Factors, Rows: report.EnergyOutputs(rows, s.cfg.Factors)})
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
	s.writeAPI(w, report.UsageDoc{Window: report.Window{Start: a.Filter.From, End: a.Filter.To}, By: a.By, Rows: report.UsageOutputs(rows)})
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
	s.writeAPI(w, report.DecisionDoc{Window: report.Window{Start: a.Filter.From, End: a.Filter.To}, Rows: rows})
}

func (s *server) apiJob(w http.ResponseWriter, r *http.Request) {
	if jr, ok := s.loadJob(w, r); ok {
		s.writeAPI(w, jr)
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
	jr, err := s.cfg.Source.JobReport(r.Context(), id)
	if err != nil {
		s.fail(w, r, http.StatusInternalServerError, err)
		return db.JobReport{}, false
	}
	return jr, true
}
