package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-hpc/strata/db"
)

const day = 24 * time.Hour

// measure brings the rollups up to the samples written (bulk up to two
// hours before, Strata's refresh for the last two, as the collector
// does), then measures disk, reports and the job page.
func (b *bench) measure(ctx context.Context, ing ingest, last bool) (result, error) {
	now := b.now()
	r := result{Label: b.o.label, Samples: b.ingested, GPUs: b.o.gpus, Ingest: ing, Load1: loadAvg(),
		SampleDays: round(float64(b.ingested)/float64(b.o.gpus)/(float64(day)/float64(b.o.period)), 2)}
	if cut := now.Add(-2 * time.Hour); cut.After(b.rolledTo) {
		n, err := b.site.copyRollups(ctx, b.conn, b.rolledTo, cut)
		if err != nil {
			return r, fmt.Errorf("bulk rollups: %w", err)
		}
		b.rollupRows += n
		b.rolledTo = cut
	}
	if b.rolledTo.Before(now) {
		t := time.Now()
		n, err := b.st.RefreshReportRollups(ctx, b.rolledTo, now, 0)
		if err != nil {
			return r, err
		}
		r.Refresh2hS = round(time.Since(t).Seconds(), 3)
		b.rollupRows += n
		b.rolledTo = now
	}
	r.RollupRows = b.rollupRows
	if err := b.exec(ctx, "Analyze"); err != nil {
		return r, err
	}
	if err := b.diskUse(ctx, &r); err != nil {
		return r, err
	}
	for _, j := range b.site.jobs {
		if j.from < now.Unix() && j.to > b.y0.Unix() {
			r.Jobs++
		}
	}
	r.HistoryDays = round(now.Sub(b.y0).Hours()/24, 1)
	logf("at %d samples: measuring reports", b.ingested)
	if err := b.reports(ctx, now, last, &r.Reports); err != nil {
		return r, err
	}
	if err := b.jobPages(ctx, now, &r.JobPage); err != nil {
		return r, err
	}
	_ = b.conn.QueryRow(ctx, b.q["Setting"], "fsync").Scan(&r.Fsync)
	_ = b.conn.QueryRow(ctx, b.q["Setting"], "shared_buffers").Scan(&r.SharedBuffer)
	return r, nil
}

func (b *bench) diskUse(ctx context.Context, r *result) error {
	d := &r.Disk
	if err := b.conn.QueryRow(ctx, b.q["SampleBytes"]).Scan(&d.SampleHeapBytes, &d.SampleIndexBytes, &r.Partitions); err != nil {
		return fmt.Errorf("sample bytes: %w", err)
	}
	d.BytesPerSample = round(float64(d.SampleHeapBytes+d.SampleIndexBytes)/float64(b.ingested), 1)
	var heap, idx int64
	if err := b.conn.QueryRow(ctx, b.q["TableBytes"], "job_gpu_hour").Scan(&heap, &idx); err != nil {
		return fmt.Errorf("rollup bytes: %w", err)
	}
	d.RollupBytes = heap + idx
	d.BytesPerRollup = round(float64(d.RollupBytes)/float64(b.rollupRows), 1)
	return b.conn.QueryRow(ctx, b.q["DatabaseBytes"]).Scan(&d.DatabaseBytes)
}

// timeIt runs f n times; the first run and the best.
func timeIt(n int, f func() (int, error)) (timing, error) {
	var t timing
	for i := 0; i < n; i++ {
		start := time.Now()
		rows, err := f()
		s := time.Since(start).Seconds()
		if err != nil {
			return t, err
		}
		if i == 0 {
			t.FirstS, t.BestS = s, s
		}
		t.BestS = min(t.BestS, s)
		t.Rows = rows
	}
	t.FirstS, t.BestS = round(t.FirstS, 3), round(t.BestS, 3)
	return t, nil
}

// reports times the energy report (what `strata report energy` and the web
// overview run) by user and by job for the month up to now (twice: the
// first run and the best are kept) and, when year, for the year (once:
// it reads the same rollups at every size).
func (b *bench) reports(ctx context.Context, now time.Time, year bool, r *reports) error {
	energy := func(from time.Time, by db.ReportDim) func() (int, error) {
		return func() (int, error) {
			rows, err := b.st.EnergyReport(ctx, db.EnergyQuery{ReportFilter: db.ReportFilter{From: from, To: now},
				By: []db.ReportDim{by}})
			return len(rows), err
		}
	}
	var err error
	month, yearAgo := now.Add(-30*day), now.Add(-365*day)
	for _, c := range []struct {
		t    *timing
		from time.Time
		by   db.ReportDim
		n    int
	}{{&r.UserMonth, month, db.DimUser, 2}, {&r.JobMonth, month, db.DimJob, 2},
		{&r.UserYear, yearAgo, db.DimUser, 1}, {&r.JobYear, yearAgo, db.DimJob, 1}} {
		if c.n == 1 && !year {
			continue
		}
		if *c.t, err = timeIt(c.n, energy(c.from, c.by)); err != nil {
			return err
		}
		logf("energy by %s from %s: %.3f s first, %.3f s best, %d rows", c.by, c.from.Format(time.DateOnly),
			c.t.FirstS, c.t.BestS, c.t.Rows)
	}
	r.Freshness, err = timeIt(3, func() (int, error) {
		_, _, err := b.st.ReportFreshness(ctx)
		return 1, err
	})
	return err
}

// jobPages times Store.JobReport (the page of `strata serve` /job/ID): the
// longest job of the most GPUs that started in the last day of samples,
// and one from the bulk-loaded history (no samples left).
func (b *bench) jobPages(ctx context.Context, now time.Time, p *jobPage) error {
	recent, old := -1, -1
	for i, j := range b.site.jobs {
		if j.from >= max(b.w0.Unix(), now.Add(-day).Unix()) && j.from < now.Unix() {
			if recent < 0 || b.size(i) > b.size(recent) ||
				b.size(i) == b.size(recent) && min(j.to, now.Unix())-j.from > min(b.site.jobs[recent].to, now.Unix())-b.site.jobs[recent].from {
				recent = i
			}
		}
		if old < 0 && j.from > b.y0.Add(30*day).Unix() && b.size(i) == gpusPerNode {
			old = i
		}
	}
	page := func(i int) func() (int, error) {
		return func() (int, error) {
			jr, err := b.st.JobReport(ctx, b.site.id(i), db.Scope{})
			return len(jr.Series), err
		}
	}
	var err error
	if recent >= 0 {
		if p.Recent, err = timeIt(3, page(recent)); err != nil {
			return err
		}
		j := b.site.jobs[recent]
		p.RecentGPUs, p.RecentH = b.size(recent), round(float64(min(j.to, now.Unix())-j.from)/3600, 2)
	}
	if old >= 0 {
		p.Old, err = timeIt(3, page(old))
	}
	return err
}

func (b *bench) size(i int) int { return len(b.site.lanes[b.site.jobs[i].lane].gpus) }

// finale, after the largest size: retention, a year of partitions, and a
// collector restart with a full spool.
func (b *bench) finale(ctx context.Context, r *result, dir string) error {
	var oldest string
	if err := b.conn.QueryRow(ctx, b.q["OldestPartition"]).Scan(&oldest); err != nil {
		return fmt.Errorf("oldest partition: %w", err)
	}
	first, err := time.Parse("20060102", strings.TrimPrefix(oldest, "gpu_sample_"))
	if err != nil {
		return fmt.Errorf("oldest partition %q: %w", oldest, err)
	}
	// Drop the oldest day's partition.
	ret, err := b.retention(ctx, first.Add(day))
	if err != nil {
		return err
	}
	r.Retention = &ret
	logf("retention: dropped %d partition(s) in %.3f s", ret.Dropped, ret.Seconds)
	if b.o.yearParts {
		y := &yearPt{}
		keepFrom := first.Add(day)
		t := time.Now()
		for d := keepFrom.Add(-365 * day); d.Before(keepFrom); d = d.Add(day) {
			if err := b.exec(ctx, "EnsurePartition", d); err != nil {
				return err
			}
		}
		y.CreateS = round(time.Since(t).Seconds(), 2)
		if y.Partitions, err = b.partitions(ctx); err != nil {
			return err
		}
		var jp jobPage
		if err := b.jobPages(ctx, b.now(), &jp); err != nil {
			return err
		}
		y.JobPage = jp.Recent
		samples, jobs, as, ends := b.sampler.batch(b.o.batch / b.o.gpus)
		t = time.Now()
		if err := b.st.WriteBatch(ctx, db.Batch{Samples: samples, Assignments: as, Cluster: cluster, Jobs: jobs, JobEnds: ends}); err != nil {
			return err
		}
		y.BatchS = round(time.Since(t).Seconds(), 3)
		if y.Retention, err = b.retention(ctx, keepFrom); err != nil {
			return err
		}
		r.YearOfParts = y
		logf("a year of partitions (%d): job page %.3f s, a batch %.3f s, dropping %d empty ones %.2f s",
			y.Partitions, y.JobPage.BestS, y.BatchS, y.Retention.Dropped, y.Retention.Seconds)
	}
	if b.o.spoolBytes > 0 {
		sp, err := b.spool(ctx, filepath.Join(dir, "collect-spool.jsonl"))
		if err != nil {
			return err
		}
		r.Spool = &sp
	}
	return nil
}

// retention runs `strata db retention` with the --keep that drops every
// daily partition before cutoff's day, and counts what it dropped.
func (b *bench) retention(ctx context.Context, cutoff time.Time) (retain, error) {
	before, err := b.partitions(ctx)
	if err != nil {
		return retain{}, err
	}
	keep := time.Since(cutoff.Add(time.Hour)).Truncate(time.Minute)
	cmd := exec.CommandContext(ctx, b.o.strata, "db", "retention", "--keep", keep.String())
	cmd.Env = append(os.Environ(), "STRATA_DATABASE_URL="+b.o.url)
	t := time.Now()
	out, err := cmd.CombinedOutput()
	s := time.Since(t).Seconds()
	if err != nil {
		return retain{}, fmt.Errorf("strata db retention --keep %s: %w: %s", keep, err, out)
	}
	after, err := b.partitions(ctx)
	return retain{Dropped: int(before - after), Seconds: round(s, 3)}, err
}

// spool fills a spool of o.spoolBytes with the next sweeps' batches, as a
// collector does while Postgres is down, then opens it again with a new
// store and ingester (a restarted collector) and times the drain.
func (b *bench) spool(ctx context.Context, path string) (spoolR, error) {
	var r spoolR
	sp, err := db.OpenSpool(path, b.o.spoolBytes)
	if err != nil {
		return r, err
	}
	t := time.Now()
	for {
		samples, jobs, as, ends := b.sampler.batch(b.o.batch / b.o.gpus)
		err := sp.Append(db.Batch{Samples: samples, Assignments: as, Cluster: cluster, Jobs: jobs, JobEnds: ends})
		if errors.Is(err, db.ErrSpoolFull) {
			break
		}
		if err != nil {
			return r, err
		}
		r.Batches++
		r.Samples += int64(len(samples))
	}
	r.FillS = round(time.Since(t).Seconds(), 2)
	if r.Bytes, err = sp.Size(); err != nil {
		return r, err
	}
	logf("spool: %d batches, %d samples, %d bytes in %.1f s; draining", r.Batches, r.Samples, r.Bytes, r.FillS)
	st, err := db.Open(ctx, db.Config{URL: b.o.url, MaxConns: 4})
	if err != nil {
		return r, err
	}
	defer st.Close()
	sp.Close() // the restarted collector takes the spool over
	sp2, err := db.OpenSpool(path, b.o.spoolBytes)
	if err != nil {
		return r, err
	}
	t = time.Now()
	n, err := db.NewIngester(st, sp2).Flush(ctx)
	if err != nil {
		return r, fmt.Errorf("drain: %w", err)
	}
	r.DrainS = round(time.Since(t).Seconds(), 2)
	if n != r.Batches {
		return r, fmt.Errorf("drain: %d batches written, %d spooled", n, r.Batches)
	}
	r.PerS = round(float64(r.Samples)/r.DrainS, 0)
	logf("spool drained: %.1f s (%.0f samples/s)", r.DrainS, r.PerS)
	return r, nil
}
