package main

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
)

//go:embed bench.sql
var benchSQL string

// loadQueries splits bench.sql into its "-- name: X" queries.
func loadQueries() (map[string]string, error) {
	q := map[string]string{}
	var name string
	var body strings.Builder
	flush := func() {
		if name != "" {
			q[name] = strings.TrimSpace(body.String())
		}
		body.Reset()
	}
	for _, line := range strings.Split(benchSQL, "\n") {
		if n, ok := strings.CutPrefix(line, "-- name: "); ok {
			flush()
			name = strings.TrimSpace(n)
			continue
		}
		if name != "" && !strings.HasPrefix(line, "--") {
			body.WriteString(line + "\n")
		}
	}
	flush()
	if len(q) == 0 {
		return nil, fmt.Errorf("load bench.sql: no queries")
	}
	return q, nil
}

// bench holds one run's state.
type bench struct {
	o    options
	st   *db.Store
	conn *pgx.Conn
	q    map[string]string
	site *site

	end, w0, y0 time.Time
	sampler     *sampler
	ingested    int64     // samples written through the ingester
	rolledTo    time.Time // rollups exist up to here
	jobsBulk    int64
	rollupRows  int64
	historyS    float64
}

func (b *bench) run(ctx context.Context) error {
	o := b.o
	total := o.sweepsFor(o.sizes[len(o.sizes)-1])
	// The window ends two hours before yesterday (UTC), so the spool is
	// filled after it and retention (relative to now, keeping at least a
	// day) can drop its oldest partition even when it is its only one.
	b.end = time.Now().UTC().Truncate(24 * time.Hour).Add(-26 * time.Hour)
	b.w0 = b.end.Add(-time.Duration(total) * o.period)
	b.y0 = b.w0.Add(-o.history)
	logf("site: %d GPUs, window %s … %s (%d sweeps), history from %s", o.gpus, b.w0.Format(time.RFC3339),
		b.end.Format(time.RFC3339), total, b.y0.Format(time.RFC3339))
	t := time.Now()
	b.site = newSite(o.gpus, o.period, b.y0.Add(-72*time.Hour), b.end.Add(48*time.Hour), 1)
	logf("%d jobs on %d lanes generated in %.1f s", len(b.site.jobs), len(b.site.lanes), time.Since(t).Seconds())

	t = time.Now()
	jobs, assigns, rollups, err := b.site.history(ctx, b.conn, b.y0, b.w0)
	if err != nil {
		return err
	}
	b.historyS = time.Since(t).Seconds()
	b.jobsBulk, b.rollupRows, b.rolledTo = jobs, rollups, b.w0
	logf("history: %d jobs, %d assignments, %d rollup rows in %.1f s (bulk COPY)", jobs, assigns, rollups, b.historyS)
	// The daily rollups of the bulk-loaded hours (the refresh builds them
	// with the hours; COPY bypasses it).
	t = time.Now()
	days, err := b.st.CheckDayRollups(ctx, b.y0, b.w0)
	if err != nil {
		return err
	}
	logf("daily rollups of %d days built in %.1f s", len(days), time.Since(t).Seconds())
	if err := b.exec(ctx, "Analyze"); err != nil {
		return err
	}

	dir, err := os.MkdirTemp(o.spoolDir, "benchstore-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	spool, err := db.OpenSpool(filepath.Join(dir, "ingest-spool.jsonl"), 1<<30)
	if err != nil {
		return err
	}
	in := db.NewIngester(b.st, spool)
	b.sampler = newSampler(b.site, b.w0)
	var done int64
	for k, size := range o.sizes {
		sweeps := o.sweepsFor(size)
		if sweeps <= done {
			continue // rounds to the hours of the size before
		}
		ing, err := b.ingest(ctx, in, sweeps-done)
		if err != nil {
			return err
		}
		done = sweeps
		if k == 0 {
			ing.HistoryLoadS, ing.HistoryRollupRow = round(b.historyS, 1), rollups
		}
		r, err := b.measure(ctx, ing, o.yearReports && k == len(o.sizes)-1)
		if err != nil {
			return err
		}
		if k == len(o.sizes)-1 {
			if err := b.finale(ctx, &r, dir); err != nil {
				r.Error = err.Error()
				emit(r) // what was measured before the failure
				return err
			}
		}
		emit(r)
	}
	return nil
}

// ingest writes sweeps sweeps through the ingester in batches of o.batch
// samples (as strata collect does) and times the writes alone.
func (b *bench) ingest(ctx context.Context, in *db.Ingester, sweeps int64) (ingest, error) {
	per := int64(b.o.batch / b.o.gpus)
	var res ingest
	var write time.Duration
	var tenths []time.Duration
	tenth := max(1, sweeps/per/10)
	var cur time.Duration
	partsBefore, err := b.partitions(ctx)
	if err != nil {
		return res, err
	}
	wall := time.Now()
	lastLog := time.Now()
	for left := sweeps; left > 0; {
		n := min(per, left)
		left -= n
		samples, jobs, as, ends := b.sampler.batch(int(n))
		t := time.Now()
		wr, err := in.Write(ctx, db.Batch{Samples: samples, Assignments: as, Cluster: cluster, Jobs: jobs, JobEnds: ends})
		d := time.Since(t)
		if err != nil {
			return res, err
		}
		if wr.Spooled || wr.Reduced {
			return res, fmt.Errorf("ingest: a batch was spooled: %v", wr.Cause)
		}
		write += d
		cur += d
		res.SlowestBatchS = max(res.SlowestBatchS, d.Seconds())
		res.Samples += int64(len(samples))
		res.Batches++
		if res.Batches%tenth == 0 {
			tenths = append(tenths, cur)
			cur = 0
		}
		if time.Since(lastLog) > 30*time.Second {
			logf("ingested %d samples (%.0f/s)", b.ingested+res.Samples, float64(res.Samples)/write.Seconds())
			lastLog = time.Now()
		}
	}
	b.ingested += res.Samples
	res.Seconds = round(write.Seconds(), 2)
	res.PerS = round(float64(res.Samples)/write.Seconds(), 0)
	res.WallPerS = round(float64(res.Samples)/time.Since(wall).Seconds(), 0)
	chunk := float64(tenth * per * int64(b.o.gpus))
	if len(tenths) > 0 {
		res.FirstTenthPerS = round(chunk/tenths[0].Seconds(), 0)
		res.LastTenthPerS = round(chunk/tenths[len(tenths)-1].Seconds(), 0)
	}
	res.SlowestBatchS = round(res.SlowestBatchS, 3)
	partsAfter, err := b.partitions(ctx)
	res.PartitionsNew = partsAfter - partsBefore
	return res, err
}

// now is the end of the samples written so far.
func (b *bench) now() time.Time { return time.Unix(b.sampler.t, 0).UTC() }

func (b *bench) exec(ctx context.Context, name string, args ...any) error {
	if _, err := b.conn.Exec(ctx, b.q[name], args...); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func (b *bench) partitions(ctx context.Context) (int64, error) {
	var heap, idx, n int64
	err := b.conn.QueryRow(ctx, b.q["SampleBytes"]).Scan(&heap, &idx, &n)
	return n, err
}
