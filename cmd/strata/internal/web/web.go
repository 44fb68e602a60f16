package web

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/cmd/strata/internal/report"
	"github.com/strata-hpc/strata/db"
)

//go:embed templates/*.html static/*
var webFS embed.FS

// Config configures the web server.
type Config struct {
	Source   report.Source
	Factors  report.EnergyFactors
	Location *time.Location
	Log      zerolog.Logger
	// Users enables basic auth when non-nil.
	Users Htpasswd
	// Roles are the logins' roles (Role); a login without one has a
	// user's scope. Without Users or UserHeader every request sees
	// everything.
	Roles map[string]Role
	// TrustedProxies are the reverse proxies whose X-Forwarded-For (and
	// UserHeader) are believed (proxy.go).
	TrustedProxies []netip.Prefix
	// UserHeader, when set, signs requests from TrustedProxies in as the
	// identity in this header (signin.go).
	UserHeader string
	// Admins are the logins and identities with the admin role.
	Admins []string
	// Now is the clock for relative windows (nil: time.Now).
	Now func() time.Time
	// Metrics, when set, count requests by kind of path and status.
	Metrics *Metrics
}

type server struct {
	cfg   Config
	pages map[string]*template.Template
}

// New returns the read-only handler: pages, JSON API and the
// embedded static assets. Only GET and HEAD are served.
func New(cfg Config) (http.Handler, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	s := &server{cfg: cfg, pages: map[string]*template.Template{}}
	for _, p := range []string{"overview", "view", "job", "error"} {
		t, err := template.New("layout.html").Funcs(s.funcs()).ParseFS(webFS,
			"templates/layout.html", "templates/"+p+".html")
		if err != nil {
			return nil, fmt.Errorf("parse web templates: %w", err)
		}
		s.pages[p] = t
	}
	static, err := fs.Sub(webFS, "static")
	if err != nil {
		return nil, fmt.Errorf("web static files: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.overview)
	mux.HandleFunc("GET /by/{dim}", s.view)
	mux.HandleFunc("GET /search", s.search)
	mux.HandleFunc("GET /job/{id}", s.jobPage)
	mux.HandleFunc("GET /api/energy", s.apiEnergy)
	mux.HandleFunc("GET /api/usage", s.apiUsage)
	mux.HandleFunc("GET /api/decisions", s.apiDecisions)
	mux.HandleFunc("GET /api/job/{id}", s.apiJob)
	mux.Handle("GET /static/", http.StripPrefix("/static/", staticHandler(http.FileServerFS(static))))
	var h http.Handler = mux
	if cfg.signs() {
		h = s.signIn(h)
	}
	top := http.NewServeMux() // /healthz is open: load balancers probe it, and it says nothing secret
	top.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	top.Handle("/", h)
	h = logRequests(cfg.Log, securityHeaders(top))
	if cfg.Metrics != nil { // outermost: refused logins count too
		h = countRequests(cfg.Metrics, h)
	}
	return h, nil
}

// logRequests logs every request (method, path, status, time taken) at
// info, assets and health checks at debug. Query strings are kept out of
// the log: they may name users.
func logRequests(log zerolog.Logger, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		ev := log.Info()
		if strings.HasPrefix(r.URL.Path, "/static/") || r.URL.Path == "/healthz" {
			ev = log.Debug()
		}
		ev.Str("method", r.Method).Str("path", r.URL.Path).Int("status", sw.status).
			Dur("took_ms", time.Since(t0)).Msg("request")
	})
}

// countRequests counts every request in m by kind of path and status.
func countRequests(m *Metrics, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		m.observe(r, sw.status, time.Since(t0))
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func staticHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		h.ServeHTTP(w, r)
	})
}

// securityHeaders sets a strict policy: scripts and styles only from this
// server (no CDN), no framing, no referrer.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; "+
			"img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Frame-Options", "DENY")
		h.ServeHTTP(w, r)
	})
}

// webQuery is a page's or API call's parsed query string.
type webQuery struct {
	Start, End string // as typed (for the form)
	Args       report.Query
}

// parseWebQuery reads start, end, by, user, account, partition, cluster and job
// (sacct forms; defaults now-7days .. now) from the URL.
func (s *server) parseWebQuery(r *http.Request, defaultBy string) (webQuery, error) {
	q := r.URL.Query()
	wq := webQuery{Start: q.Get("start"), End: q.Get("end")}
	if wq.Start == "" {
		wq.Start = "now-7days"
	}
	if wq.End == "" {
		wq.End = "now"
	}
	a := &wq.Args
	a.Loc = s.cfg.Location
	now := s.cfg.Now()
	var err error
	if a.Filter.From, err = report.ParseTime(wq.Start, now, a.Loc); err != nil {
		return wq, fmt.Errorf("start: %w", err)
	}
	if a.Filter.To, err = report.ParseTime(wq.End, now, a.Loc); err != nil {
		return wq, fmt.Errorf("end: %w", err)
	}
	if err := a.Filter.Validate(); err != nil {
		return wq, err
	}
	a.Filter.Scope = s.scopeOf(r)
	a.Filter.Users, a.Filter.Accounts, a.Filter.Partitions = q["user"], q["account"], q["partition"]
	a.Filter.Clusters = q["cluster"]
	if a.Filter.Jobs, err = report.ParseJobIDs(q["job"]); err != nil {
		return wq, err
	}
	by := q["by"]
	if len(by) == 0 && defaultBy != "" {
		by = []string{defaultBy}
	}
	a.By, err = db.ParseReportDims(by)
	return wq, err
}

func pathJobID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("job id %q: want a number", r.PathValue("id"))
	}
	return id, nil
}

// fail answers an error: 400 for bad input, 404 for unknown jobs, 500 (and
// a log line) otherwise; pages get HTML, the API JSON.
func (s *server) fail(w http.ResponseWriter, r *http.Request, status int, err error) {
	if errors.Is(err, db.ErrNotFound) {
		status = http.StatusNotFound
	}
	msg := err.Error()
	if status >= 500 {
		s.cfg.Log.Error().Err(err).Str("path", r.URL.Path).Msg("web request failed")
		msg = "internal error: the report could not be computed (see the server log)"
	}
	if isAPI(r) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = report.WriteJSON(w, map[string]string{"error": msg})
		return
	}
	s.render(w, r, status, "error", map[string]any{"Title": http.StatusText(status), "Status": status, "Message": msg})
}

func isAPI(r *http.Request) bool { return len(r.URL.Path) >= 5 && r.URL.Path[:5] == "/api/" }

// render executes a page template into a buffer first, so that a template
// error becomes a clean 500 instead of half a page.
func (s *server) render(w http.ResponseWriter, r *http.Request, status int, page string, data any) {
	var buf bytes.Buffer
	if err := s.pages[page].ExecuteTemplate(&buf, "layout.html", data); err != nil {
		s.cfg.Log.Error().Err(err).Str("page", page).Msg("render page")
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func (s *server) writeAPI(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = report.WriteJSON(w, v)
}
