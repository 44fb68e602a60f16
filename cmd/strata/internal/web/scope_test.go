package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/planner"
)

func TestMain(m *testing.M) { os.Exit(dbtest.Main(m)) }

// scopeT0 is the hour the scope tests' jobs ran in.
var scopeT0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// scopeJobs: id, user, account, partition, node. Job 5 (bob) has planner
// decisions only: no job row, no telemetry.
var scopeJobs = []struct {
	id                             int64
	user, account, partition, node string
}{
	{1, "alice", "vision", "pa", "n1"},
	{2, "bob", "nlp", "pb", "n2"},
	{3, "carol", "vision", "pc", "n3"},
	{4, "dave", "nlp", "pd", "n4"},
}

// scopeStore is a fresh database holding scopeJobs (a job row, an
// assignment and a rollup row each) and decisions about jobs 1, 2 and 5.
func scopeStore(t *testing.T) *db.Store {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	ctx := context.Background()
	u := dbtest.URL(t)
	st := dbtest.Open(t, u, true)
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, j := range scopeJobs {
		gpu := "GPU-" + j.node
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO job (job_id, name, user_name, account, partition, submit_time, start_time, end_time)
			  VALUES ($1, 'train', $2, $3, $4, $5, $5, $6)`, []any{j.id, j.user, j.account, j.partition, scopeT0, scopeT0.Add(30 * time.Minute)}},
			{`INSERT INTO gpu_assignment (job_id, host, gpu_uuid, t_from, t_to) VALUES ($1, $2, $3, $4, $5)`,
				[]any{j.id, j.node, gpu, scopeT0, scopeT0.Add(30 * time.Minute)}},
			{`INSERT INTO job_gpu_hour (hour, job_id, gpu_uuid, host, t_lo, t_hi, gpu_seconds, energy_j, util_gpu_seconds,
			  sampled_seconds, idle_gpu_seconds, idle_energy_j) VALUES ($1, $2, $3, $4, $1, $5, 1800, $6::float8, 1800*50, 1800, 900, $6::float8/4)`,
				[]any{scopeT0, j.id, gpu, j.node, scopeT0.Add(30 * time.Minute), float64(j.id) * 1e5}},
		} {
			if _, err := conn.Exec(ctx, q.sql, q.args...); err != nil {
				t.Fatal(err)
			}
		}
	}
	dec := func(job int64, user string) db.CycleDecision {
		return db.CycleDecision{Decision: planner.Decision{JobID: job, Action: planner.ActionUpdate,
			Reasons: []planner.Reason{"smd_optimal"}}, User: user, JobName: "train", Partition: "pb", Outcome: decide.Applied}
	}
	c := &db.Cycle{Cluster: "c", SnapshotID: "s", Policy: "smd", StartedAt: scopeT0.Add(time.Minute),
		Decisions: []db.CycleDecision{dec(1, "alice"), dec(2, "bob"), dec(5, "bob")}}
	if err := st.SaveCycle(ctx, c); err != nil {
		t.Fatal(err)
	}
	return st
}

// Three logins over the same data see exactly their scope in every page,
// JSON document and CSV export: alice (a user) her own jobs, carol (the
// coordinator of nlp) nlp's jobs and her own, root (an admin) all; a job
// page outside the scope answers 404 as an unknown job does.
func TestScopePerLogin(t *testing.T) {
	st := scopeStore(t)
	users := writeUsers(t, map[string]string{"alice": "user", "carol": "coordinator=nlp", "root": "admin"})
	h, err := New(Config{Source: st, Location: time.UTC, Log: zerolog.Nop(), Users: users.Hashes, Roles: users.Roles,
		Now: func() time.Time { return scopeT0.Add(2 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		login      string
		users      []string // overview's users table, usage API, CSV
		partitions []string // the partition view
		decided    int      // jobs in the decisions API
		jobs       map[int64]int
	}{
		{"alice", []string{"alice"}, []string{"pa"}, 1, map[int64]int{1: 200, 2: 404, 3: 404, 4: 404, 5: 404, 9: 404}},
		{"carol", []string{"bob", "carol", "dave"}, []string{"pb", "pc", "pd"}, 1,
			map[int64]int{1: 404, 2: 200, 3: 200, 4: 200, 5: 404, 9: 404}},
		{"root", []string{"alice", "bob", "carol", "dave"}, []string{"pa", "pb", "pc", "pd"}, 3,
			map[int64]int{1: 200, 2: 200, 3: 200, 4: 200, 5: 200, 9: 404}},
	}
	for _, tt := range tests {
		t.Run(tt.login, func(t *testing.T) {
			get := func(path string) (int, string) { return getAs(t, h, tt.login, path) }
			win := "start=2026-11-20T11:00&end=2026-11-20T14:00"
			_, page := get("/?" + win)
			if d := cmp.Diff(tt.users, firstCells(t, page, "users")); d != "" {
				t.Errorf("overview users (-want +got):\n%s", d)
			}
			_, page = get("/by/partition?" + win)
			if d := cmp.Diff(tt.partitions, firstCells(t, page, "view")); d != "" {
				t.Errorf("partition view (-want +got):\n%s", d)
			}
			var doc struct {
				Rows []struct {
					User string `json:"user"`
					Jobs int    `json:"jobs"`
				} `json:"rows"`
			}
			_, body := get("/api/usage?by=user&" + win)
			if err := json.Unmarshal([]byte(body), &doc); err != nil {
				t.Fatalf("usage API: %v: %s", err, body)
			}
			var got []string
			for _, r := range doc.Rows {
				got = append(got, r.User)
			}
			if d := cmp.Diff(tt.users, got); d != "" {
				t.Errorf("usage API users (-want +got):\n%s", d)
			}
			_, csv := get("/api/energy?by=user&format=csv&" + win)
			got = nil
			for _, line := range strings.Split(strings.TrimSpace(csv), "\n")[1:] {
				got = append(got, strings.Split(line, ",")[0])
			}
			sort.Strings(got)
			if d := cmp.Diff(tt.users, got); d != "" {
				t.Errorf("energy CSV users (-want +got):\n%s", d)
			}
			_, body = get("/api/decisions?" + win)
			doc.Rows = nil
			if err := json.Unmarshal([]byte(body), &doc); err != nil {
				t.Fatalf("decisions API: %v: %s", err, body)
			}
			decided := 0
			for _, r := range doc.Rows {
				decided += r.Jobs
			}
			if decided != tt.decided {
				t.Errorf("decisions API covers %d jobs, want %d", decided, tt.decided)
			}
			// Asking for another user's jobs by name narrows, never widens.
			if _, page := get("/?user=bob&user=dave&" + win); tt.login == "alice" && len(firstCells(t, page, "users")) != 0 {
				t.Errorf("alice asking for bob and dave sees %v", firstCells(t, page, "users"))
			}
			codes := map[int64]int{}
			for id := range tt.jobs {
				page, _ := get("/job/" + strconv.FormatInt(id, 10))
				api, _ := get("/api/job/" + strconv.FormatInt(id, 10))
				if page != api {
					t.Errorf("job %d: page %d, API %d", id, page, api)
				}
				codes[id] = page
			}
			if d := cmp.Diff(tt.jobs, codes); d != "" {
				t.Errorf("job page status (-want +got):\n%s", d)
			}
		})
	}
}

// writeUsers writes a basic-auth file of logins (password "correct horse")
// with roles and reads it back.
func writeUsers(t *testing.T, roles map[string]string) Users {
	t.Helper()
	var b strings.Builder
	for login, role := range roles {
		h, err := HashPassword("correct horse")
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(login + ":" + h + ":" + role + "\n")
	}
	path := filepath.Join(t.TempDir(), "users")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	users, err := ReadUsers(path)
	if err != nil {
		t.Fatal(err)
	}
	return users
}

func getAs(t *testing.T, h http.Handler, login, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	req, _ := http.NewRequest("GET", path, nil)
	req.RemoteAddr = "127.0.0.1:1234"
	req.SetBasicAuth(login, "correct horse")
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// firstCells returns the first cell of each body row of table id, sorted.
func firstCells(t *testing.T, page, id string) []string {
	t.Helper()
	var out []string
	for _, row := range strings.Split(strings.TrimSpace(tableRows(t, page, id)), "\n") {
		if row != "" && !strings.HasPrefix(row, "No data") {
			out = append(out, strings.Split(row, "|")[0])
		}
	}
	sort.Strings(out)
	return out
}
