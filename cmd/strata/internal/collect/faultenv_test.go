package collect

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/rs/zerolog"

	"github.com/strata-hpc/strata/db"
	"github.com/strata-hpc/strata/db/dbtest"
	"github.com/strata-hpc/strata/dcgm"
	"github.com/strata-hpc/strata/dcgm/dcgmtest"
)

// faultDB is a fresh database of the test server owned by a role of its
// own (not a superuser, so that a connection limit holds for it), with a
// superuser connection that injects faults into what the collector sees.
type faultDB struct {
	name, role string
	url        string    // the collector's: as role
	admin      *pgx.Conn // superuser, on this database
}

func newFaultDB(t *testing.T) *faultDB {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test (Postgres)")
	}
	ctx := context.Background()
	base := os.Getenv(dbtest.EnvURL)
	role := "strata_fault_" + randHex(t)
	c, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE ROLE "+role+" LOGIN"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // after the database is dropped (cleanups run last first)
		c, err := pgx.Connect(context.Background(), base)
		if err == nil {
			defer c.Close(context.Background())
			_, err = c.Exec(context.Background(), "DROP ROLE IF EXISTS "+role)
		}
		if err != nil {
			t.Logf("drop role %s: %v", role, err)
		}
	})
	u, err := url.Parse(dbtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	f := &faultDB{name: strings.TrimPrefix(u.Path, "/"), role: role}
	f.admin, err = pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.admin.Close(context.Background()) })
	f.exec(t, "ALTER DATABASE "+f.name+" OWNER TO "+role)
	u.User = url.User(role)
	f.url = u.String()
	dbtest.Open(t, f.url, true) // migrated by its owner
	return f
}

func randHex(t *testing.T) string {
	b := make([]byte, 5)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func (f *faultDB) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := f.admin.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// dropConnections ends every session of the collector's role: a failover,
// a restart, a network cut as the collector sees it.
func (f *faultDB) dropConnections(t *testing.T) {
	f.exec(t, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", f.role)
}

// replaceConnections ends the role's sessions so that new ones meet a
// fault, and waits until the collector's pool will ping its idle
// connections before using them (pgxpool does after a second idle): the
// dead ones are then replaced without an error, and the first statement
// that fails meets the fault itself, not a dropped connection.
func (f *faultDB) replaceConnections(t *testing.T) {
	f.dropConnections(t)
	time.Sleep(1100 * time.Millisecond)
}

// readOnly makes the database refuse writes (SQLSTATE 25006) as a primary
// demoted by a failover does: every session is read-only.
func (f *faultDB) readOnly(t *testing.T, on bool) {
	if on {
		f.exec(t, "ALTER DATABASE "+f.name+" SET default_transaction_read_only = on")
		f.replaceConnections(t)
		return
	}
	f.exec(t, "ALTER DATABASE "+f.name+" RESET default_transaction_read_only")
	f.dropConnections(t)
}

// connectionLimit refuses the role's connections (SQLSTATE 53300, "too
// many connections for role") while on.
func (f *faultDB) connectionLimit(t *testing.T, on bool) {
	if on {
		f.exec(t, "ALTER ROLE "+f.role+" CONNECTION LIMIT 0")
		f.replaceConnections(t)
		return
	}
	f.exec(t, "ALTER ROLE "+f.role+" CONNECTION LIMIT -1")
}

// raising makes every write of the collector's tables fail with SQLSTATE
// code (53100 disk full, 53200 out of memory) while on. The error is raised
// by a trigger, not by a full disk or an exhausted server: the collector
// sees the same SQLSTATE on the same statements.
func (f *faultDB) raising(t *testing.T, code string, on bool) {
	tables := []string{"gpu", "gpu_sample", "job", "gpu_assignment"}
	if !on {
		for _, tb := range tables {
			f.exec(t, "DROP TRIGGER strata_fault ON "+tb)
		}
		return
	}
	f.exec(t, fmt.Sprintf(`CREATE OR REPLACE FUNCTION strata_fault() RETURNS trigger LANGUAGE plpgsql AS
		$$BEGIN RAISE EXCEPTION 'injected fault %s' USING ERRCODE = '%s'; END$$`, code, code))
	for _, tb := range tables {
		f.exec(t, "CREATE TRIGGER strata_fault BEFORE INSERT OR UPDATE ON "+tb+
			" FOR EACH STATEMENT EXECUTE FUNCTION strata_fault()")
	}
}

// faultSource replays samples, calling before(i) ahead of sweep i and
// moving the samples of sweep i by shift(i) (a clock step).
type faultSource struct {
	src    dcgm.Source
	i      int
	before func(i int)
	shift  func(i int) time.Duration
}

func (s *faultSource) Snapshot(ctx context.Context) ([]dcgm.Sample, error) {
	if s.before != nil {
		s.before(s.i)
	}
	smp, err := s.src.Snapshot(ctx)
	if d := time.Duration(0); s.shift != nil {
		if d = s.shift(s.i); d != 0 {
			for k := range smp {
				smp[k].Time = smp[k].Time.Add(d)
			}
		}
	}
	s.i++
	return smp, err
}

// replayOpts is one run of the collector over a recording.
type replayOpts struct {
	spool    string // "": a new one
	spoolMax int64  // 0: 1 GiB
	before   func(i int)
	shift    func(i int) time.Duration
	store    *db.Store // nil: a store on f.url
}

// outcome is what a run left: its metrics, its log, its spool.
type outcome struct {
	metrics map[string]float64
	logs    string
	spool   string
}

// syncBuffer is a log sink safe for the collector and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// replay runs the collector in process over rec, one sweep (8 samples) per
// batch as in issue 23, with the recording's schedule as the GPU→job map.
func replay(t *testing.T, dbURL string, rec dcgmtest.Recording, o replayOpts) outcome {
	t.Helper()
	ctx := context.Background()
	st := o.store
	if st == nil {
		var err error
		st, err = db.Open(ctx, db.Config{URL: dbURL})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
	}
	if o.spool == "" {
		o.spool = t.TempDir() + "/spool.jsonl"
	}
	m := NewMetrics()
	cfg := Config{Source: "replay", BatchSamples: 8, FlushEvery: time.Hour, SpoolFile: o.spool, SpoolMax: o.spoolMax,
		RollupEvery: time.Hour, Metrics: m}
	in := &Input{src: &faultSource{src: dcgm.NewReplaySource(rec.Samples, dcgm.ReplayConfig{}), before: o.before, shift: o.shift},
		mapper: scheduleMapper{sched: rec.Schedule}, paced: true, close: func() {}}
	var logs syncBuffer
	if err := takeAndRun(ctx, cfg, in, st, zerolog.New(&logs)); err != nil {
		t.Fatalf("collect: %v\n%s", err, logs.String())
	}
	return outcome{metrics: values(t, m.Registry()), logs: logs.String(), spool: o.spool}
}

// truthError compares every job's GPU-hours and energy in the rollups with
// the recording's schedule (the truth) and returns the largest relative
// errors; a job whose error exceeds 0.5 % fails the test.
func truthError(t *testing.T, dbURL string, sched dcgm.Schedule) (gpuHours, energy float64) {
	t.Helper()
	ctx := context.Background()
	st, err := db.Open(ctx, db.Config{URL: dbURL})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, j := range sched.Jobs {
		got, err := st.JobEnergyTotal(ctx, j.Job)
		if err != nil {
			t.Fatalf("job %d: %v", j.Job, err)
		}
		gpus := 0
		for _, a := range j.Allocs {
			gpus += len(a.Indices)
		}
		wantSec := float64(gpus) * j.End.Sub(j.Start).Seconds()
		eh := math.Abs(got.GPUSeconds-wantSec) / wantSec
		ee := math.Abs(got.EnergyJ-j.EnergyJ) / j.EnergyJ
		if testing.Verbose() {
			t.Logf("job %d: GPU-hours %.4f %%, energy %.4f %% off", j.Job, 100*eh, 100*ee)
		}
		if eh > 0.005 || ee > 0.005 {
			t.Errorf("job %d: %.4f GPU-hours (truth %.4f), %.0f J (truth %.0f J): %.2f %% and %.2f %% off",
				j.Job, got.GPUSeconds/3600, wantSec/3600, got.EnergyJ, j.EnergyJ, 100*eh, 100*ee)
		}
		gpuHours, energy = max(gpuHours, eh), max(energy, ee)
	}
	return gpuHours, energy
}

// report logs the numbers of a run: batches and samples by result, the
// largest errors against the truth.
func report(t *testing.T, o outcome, gpuHoursErr, energyErr float64) {
	t.Helper()
	m := o.metrics
	b := func(r string) int { return int(m["strata_collect_batches_total{result="+r+"}"]) }
	s := func(r string) int { return int(m["strata_collect_samples_total{result="+r+"}"]) }
	t.Logf("batches: %d written, %d spooled, %d reduced, %d replayed, %d lost, %d quarantined; "+
		"samples: %d written, %d spooled, %d lost, %d quarantined, %d skipped; "+
		"largest error: GPU-hours %.3f %%, energy %.3f %%",
		b("written"), b("spooled"), b("reduced"), b("replayed"), b("lost"), b("quarantined"),
		s("written"), s("spooled"), s("lost"), s("quarantined"), s("skipped"), 100*gpuHoursErr, 100*energyErr)
}
