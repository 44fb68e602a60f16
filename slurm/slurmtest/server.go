package slurmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Server is an httptest stand-in for slurmrestd serving JSON recorded from
// the real one (dir/openapi.json, jobs.json, nodes.json, partitions.json)
// under the slurmctld API versions the recorded openapi.json lists
// (testdata/: Slurm 24.11's v0.0.40–v0.0.42; a recording made through
// v0.0.44 lists only the versions its answers are for). It behaves like slurmrestd where Apply depends on it:
// GET job/{id} answers 404 with Slurm error 2017 for unknown jobs, POST
// job/{id} updates the stored job (priority, tres_per_node, tres_per_job,
// minimum_nodes, begin_time, admin_comment) and answers 500 with error 2073 when the
// job is not pending (an update of the admin comment alone is taken on a
// running job too, as by slurmctld), and DELETE job/{id}?signal=SIGX
// delivers a signal to a running job (Signals; 500 with error 2017 for an
// unknown job, 2021 for one not running; RequeueOnSignal makes the job
// requeue itself). It is for unit tests only: integration tests use the
// real cluster (Connect).
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	files    map[string][]byte
	versions map[string]bool // API versions served (from openapi.json)
	jobs     []map[string]any
	meta     any
	writes   []Write
	failing  int // answer this many next requests with 503
	// busy: answer this many next job updates as a busy slurmctld does
	// (HTTP 500, slurm error 11, EAGAIN).
	busy int
	// operator: answer as slurmrestd with slurmdbd does for an operator's
	// token (AsOperator).
	operator bool
	// refuseAll: every POST is refused with error 2002 (AsPlainUser).
	refuseAll bool
	// signals delivered; requeue: a signalled job requeues itself.
	signals []Signal
	requeue bool
}

// Signal is one signal the server delivered to a job (DELETE with
// ?signal=).
type Signal struct {
	JobID  int64
	Signal string
}

// Signals returns the signals delivered so far.
func (s *Server) Signals() []Signal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Signal(nil), s.signals...)
}

// RequeueOnSignal makes every job that gets a signal requeue itself at
// once (state PENDING), as a job whose trap checkpoints quickly.
func (s *Server) RequeueOnSignal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requeue = true
}

// AsOperator makes the server answer as a slurmrestd with slurmdbd does
// for an operator's token: it serves /slurmdb, and refuses (error 2002) a
// job update that sets the admin comment, which only root and SlurmUser
// may write. Call it before the client is built.
func (s *Server) AsOperator() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.operator = true
}

// AsPlainUser makes the server serve /slurmdb and refuse every job update
// (error 2002), as for a plain user's token on other users' jobs or
// priorities.
func (s *Server) AsPlainUser() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.operator, s.refuseAll = true, true
}

// Write is one POST the server received.
type Write struct {
	JobID int64
	Body  string
	// Version is the API version of the request's path ("v0.0.44").
	Version string
}

// NewServer serves the recorded JSON in dir; it is closed when the test ends.
func NewServer(t testing.TB, dir string) *Server {
	t.Helper()
	s := &Server{files: map[string][]byte{}}
	for _, name := range []string{"openapi.json", "jobs.json", "nodes.json", "partitions.json"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("slurmtest: %v", err)
		}
		s.files[name] = b
	}
	var env struct {
		Jobs []map[string]any `json:"jobs"`
		Meta any              `json:"meta"`
	}
	if err := json.Unmarshal(s.files["jobs.json"], &env); err != nil {
		t.Fatalf("slurmtest: decode jobs.json: %v", err)
	}
	s.jobs, s.meta = env.Jobs, env.Meta
	var doc struct {
		Paths map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(s.files["openapi.json"], &doc); err != nil {
		t.Fatalf("slurmtest: decode openapi.json: %v", err)
	}
	s.versions = map[string]bool{}
	for p := range doc.Paths {
		if m := slurmPath.FindStringSubmatch(p); m != nil {
			s.versions[m[1]] = true
		}
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// FailNext makes the next n requests answer HTTP 503 without a body.
func (s *Server) FailNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing = n
}

// BusyNext makes the next n job updates answer as slurmctld does when it
// cannot take the update now: HTTP 500 with slurm error 11 ("Resource
// temporarily unavailable"), the job unchanged.
func (s *Server) BusyNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy = n
}

// Writes returns the POSTs received so far.
func (s *Server) Writes() []Write {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Write(nil), s.writes...)
}

// SetJobState changes the recorded state of a job (e.g. to "RUNNING").
func (s *Server) SetJobState(id int64, state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j := s.find(id); j != nil {
		j["job_state"] = []any{state}
	}
}

// SetJobComment changes the recorded --comment of a job.
func (s *Server) SetJobComment(id int64, comment string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j := s.find(id); j != nil {
		j["comment"] = comment
	}
}

// RemoveJob forgets a job, as slurmctld does once a finished job ages out.
func (s *Server) RemoveJob(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, j := range s.jobs {
		if jobID(j) == id {
			s.jobs = append(s.jobs[:i], s.jobs[i+1:]...)
			return
		}
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failing > 0 {
		s.failing--
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	if path == "/openapi/v3" {
		s.openapi(w)
		return
	}
	m := slurmPath.FindStringSubmatch(path + "/")
	if m == nil || !s.versions[m[1]] {
		http.NotFound(w, r)
		return
	}
	switch rest := strings.TrimSuffix(m[2], "/"); {
	case rest == "jobs":
		s.reply(w, http.StatusOK, map[string]any{"jobs": s.jobs}, nil)
	case rest == "nodes":
		s.raw(w, "nodes.json")
	case rest == "partitions":
		s.raw(w, "partitions.json")
	case strings.HasPrefix(rest, "job/"):
		id, _ := strconv.ParseInt(strings.TrimPrefix(rest, "job/"), 10, 64)
		s.job(w, r, id, m[1])
	default:
		http.NotFound(w, r)
	}
}

// slurmPath splits /slurm/VERSION/REST.
var slurmPath = regexp.MustCompile(`^/slurm/(v\d+\.\d+\.\d+)/(.*)$`)

// openapi answers GET /openapi/v3: the recorded description, or, as for a
// slurmrestd with slurmdbd (AsOperator, AsPlainUser), the jobs paths of
// both plugins in every version served.
func (s *Server) openapi(w http.ResponseWriter) {
	if !s.operator {
		s.raw(w, "openapi.json")
		return
	}
	paths := map[string]any{}
	for v := range s.versions {
		paths["/slurm/"+v+"/jobs/"], paths["/slurmdb/"+v+"/jobs/"] = struct{}{}, struct{}{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"paths": paths})
}

func (s *Server) raw(w http.ResponseWriter, name string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.files[name])
}

func (s *Server) reply(w http.ResponseWriter, status int, body map[string]any, errs []map[string]any) {
	body["errors"], body["warnings"], body["meta"] = errs, []any{}, s.meta
	if errs == nil {
		body["errors"] = []any{}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func slurmError(num int, msg string) []map[string]any {
	return []map[string]any{{"error_number": num, "error": msg, "description": "recorded stand-in", "source": "slurmtest"}}
}

func (s *Server) job(w http.ResponseWriter, r *http.Request, id int64, version string) {
	j := s.find(id)
	if j == nil {
		s.reply(w, http.StatusNotFound, map[string]any{}, slurmError(2017, "Invalid job id specified"))
		return
	}
	if r.Method == http.MethodGet {
		s.reply(w, http.StatusOK, map[string]any{"jobs": []any{j}}, nil)
		return
	}
	if r.Method == http.MethodDelete {
		s.signal(w, r, id, j)
		return
	}
	b, _ := io.ReadAll(r.Body)
	s.writes = append(s.writes, Write{JobID: id, Body: string(b), Version: version})
	var u map[string]any
	if err := json.Unmarshal(b, &u); err != nil {
		s.reply(w, http.StatusBadRequest, map[string]any{}, slurmError(9000, err.Error()))
		return
	}
	_, ac := u["admin_comment"]
	if st := state(j); st != "PENDING" && !(ac && len(u) == 1 && st == "RUNNING") {
		s.reply(w, http.StatusInternalServerError, map[string]any{}, slurmError(2073, "Job is no longer pending execution"))
		return
	}
	if s.busy > 0 {
		s.busy--
		s.reply(w, http.StatusInternalServerError, map[string]any{}, slurmError(11, "Resource temporarily unavailable"))
		return
	}
	if s.refuseAll || s.operator && ac {
		s.reply(w, http.StatusInternalServerError, map[string]any{}, slurmError(2002, "Access/permission denied"))
		return
	}
	for k, v := range u {
		switch k {
		case "minimum_nodes":
			j["node_count"] = map[string]any{"set": true, "infinite": false, "number": v}
		case "maximum_nodes":
			j["max_nodes"] = map[string]any{"set": true, "infinite": false, "number": v}
		case "begin_time":
			j["eligible_time"] = v // Slurm shows a begin time as the eligible time
		default:
			j[k] = v
		}
	}
	s.reply(w, http.StatusOK, map[string]any{"results": nil}, nil)
}

// signal delivers ?signal= to running job j.
func (s *Server) signal(w http.ResponseWriter, r *http.Request, id int64, j map[string]any) {
	if state(j) != "RUNNING" {
		s.reply(w, http.StatusInternalServerError, map[string]any{}, slurmError(2021, "Job/step already completing or completed"))
		return
	}
	s.signals = append(s.signals, Signal{JobID: id, Signal: r.URL.Query().Get("signal")})
	if s.requeue {
		j["job_state"] = []any{"PENDING"}
	}
	s.reply(w, http.StatusOK, map[string]any{"status": []any{}}, nil)
}

func (s *Server) find(id int64) map[string]any {
	for _, j := range s.jobs {
		if jobID(j) == id {
			return j
		}
	}
	return nil
}

// state is a job's first state ("" when none).
func state(j map[string]any) string {
	if st, _ := j["job_state"].([]any); len(st) > 0 {
		s, _ := st[0].(string)
		return s
	}
	return ""
}

func jobID(j map[string]any) int64 {
	f, _ := j["job_id"].(float64)
	return int64(f)
}
