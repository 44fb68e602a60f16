// Command benchstore measures Strata's telemetry store at a large site's
// volume (issue 27): a generated cluster (1,000 GPUs on 125 nodes, jobs of
// lognormal lengths on groups of 1–8 GPUs) sampled every 10 s, ingested
// through Strata's own path (db.Ingester: COPY, partitions created on
// demand, job and assignment changes with the samples) into a throwaway
// database, with a year of jobs and hourly rollups before the sample window
// loaded in bulk. At each size of -sizes it pauses and measures: ingestion
// rate, disk per sample, the rollup refresh of the last two hours, the
// energy report by user and by job for a month and a year, and the job
// page; after the largest, retention (`strata db retention`), a year's
// worth of daily partitions, and a collector restart with a full spool. It
// prints one JSON line per size on stdout (scripts/bench-store.sh).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/strata-hpc/strata/db"
)

type options struct {
	url         string
	sizes       []int64
	gpus        int
	period      time.Duration
	history     time.Duration
	batch       int
	strata      string
	spoolBytes  int64
	spoolDir    string
	yearParts   bool
	yearReports bool
	label       string
}

func main() {
	var o options
	var sizes string
	flag.StringVar(&o.url, "database-url", os.Getenv("STRATA_BENCH_DATABASE"), "the throwaway database (default $STRATA_BENCH_DATABASE); its tables are created")
	flag.StringVar(&sizes, "sizes", "1e6,1e7,1e8", "sample counts at which to measure (ingestion continues between them)")
	flag.IntVar(&o.gpus, "gpus", 1000, "GPUs (8 per node)")
	flag.DurationVar(&o.period, "period", 10*time.Second, "sample period")
	flag.DurationVar(&o.history, "history", 365*24*time.Hour, "jobs and rollups before the sample window (bulk-loaded)")
	flag.IntVar(&o.batch, "batch", 10000, "samples per batch (strata collect --batch-samples)")
	flag.StringVar(&o.strata, "strata", "bin/strata", "the strata binary (for `strata db retention`)")
	flag.Int64Var(&o.spoolBytes, "spool-bytes", 1<<30, "spool to fill and drain after the largest size (0: skip)")
	flag.StringVar(&o.spoolDir, "spool-dir", os.TempDir(), "where the spool is written")
	flag.BoolVar(&o.yearParts, "year-partitions", true, "after the largest size, add empty daily partitions up to a year and time the job page and retention with them")
	flag.BoolVar(&o.yearReports, "year-reports", true, "time the year's reports at the largest size (minutes each on a loaded 2-core machine)")
	flag.StringVar(&o.label, "label", "", "a label copied into every JSON line (e.g. fsync=off)")
	flag.Parse()
	for _, f := range strings.Split(sizes, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 {
			fmt.Fprintf(os.Stderr, "benchstore: -sizes %q: want positive numbers\n", sizes)
			os.Exit(2)
		}
		o.sizes = append(o.sizes, int64(v))
	}
	sort.Slice(o.sizes, func(a, b int) bool { return o.sizes[a] < o.sizes[b] })
	if o.url == "" || o.gpus < gpusPerNode || o.batch < o.gpus {
		fmt.Fprintln(os.Stderr, "benchstore: need -database-url, -gpus ≥ 8 and -batch ≥ -gpus")
		os.Exit(2)
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "benchstore:", err)
		os.Exit(1)
	}
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "[%s] benchstore: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
}

// hourSweeps is the number of sweeps in an hour.
func (o options) hourSweeps() int64 { return int64(time.Hour / o.period) }

// sweepsFor rounds a sample count up to whole hours of sweeps.
func (o options) sweepsFor(samples int64) int64 {
	h := o.hourSweeps()
	sw := (samples + int64(o.gpus) - 1) / int64(o.gpus)
	return (sw + h - 1) / h * h
}

func run(ctx context.Context, o options) error {
	st, err := db.Open(ctx, db.Config{URL: o.url, MaxConns: 4})
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, o.url)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	q, err := loadQueries()
	if err != nil {
		return err
	}
	b := &bench{o: o, st: st, conn: conn, q: q}
	return b.run(ctx)
}

// result is one JSON line.
type result struct {
	Label        string  `json:"label,omitempty"`
	Samples      int64   `json:"samples"`
	SampleDays   float64 `json:"sample_days"`
	Partitions   int64   `json:"partitions"`
	GPUs         int     `json:"gpus"`
	Jobs         int64   `json:"jobs"`
	RollupRows   int64   `json:"rollup_rows"`
	HistoryDays  float64 `json:"history_days"`
	Load1        float64 `json:"load_avg_1m"`
	Ingest       ingest  `json:"ingest"`
	Disk         disk    `json:"disk"`
	Refresh2hS   float64 `json:"refresh_last_2h_s"`
	Reports      reports `json:"reports"`
	JobPage      jobPage `json:"job_page"`
	Retention    *retain `json:"retention,omitempty"`
	YearOfParts  *yearPt `json:"year_of_partitions,omitempty"`
	Spool        *spoolR `json:"spool,omitempty"`
	Error        string  `json:"error,omitempty"` // a step after the measurements failed
	Fsync        string  `json:"fsync"`
	SharedBuffer string  `json:"shared_buffers"`
}

type ingest struct {
	Samples          int64   `json:"samples"`
	Seconds          float64 `json:"write_s"`
	PerS             float64 `json:"samples_per_s"`
	WallPerS         float64 `json:"wall_samples_per_s"`
	FirstTenthPerS   float64 `json:"first_tenth_per_s"`
	LastTenthPerS    float64 `json:"last_tenth_per_s"`
	SlowestBatchS    float64 `json:"slowest_batch_s"`
	PartitionsNew    int64   `json:"partitions_created"`
	Batches          int64   `json:"batches"`
	HistoryLoadS     float64 `json:"history_bulk_load_s,omitempty"`
	HistoryRollupRow int64   `json:"history_rollup_rows,omitempty"`
}

type disk struct {
	SampleHeapBytes  int64   `json:"sample_heap_bytes"`
	SampleIndexBytes int64   `json:"sample_index_bytes"`
	BytesPerSample   float64 `json:"bytes_per_sample"`
	RollupBytes      int64   `json:"rollup_bytes"`
	BytesPerRollup   float64 `json:"bytes_per_rollup_row"`
	DatabaseBytes    int64   `json:"database_bytes"`
}

type timing struct {
	FirstS float64 `json:"first_s"`
	BestS  float64 `json:"best_s"`
	Rows   int     `json:"rows"`
}

type reports struct {
	UserMonth timing `json:"energy_by_user_month"`
	UserYear  timing `json:"energy_by_user_year,omitzero"`
	JobMonth  timing `json:"energy_by_job_month"`
	JobYear   timing `json:"energy_by_job_year,omitzero"`
	Freshness timing `json:"freshness"`
}

type jobPage struct {
	Recent     timing  `json:"recent_job"`
	RecentGPUs int     `json:"recent_job_gpus"`
	RecentH    float64 `json:"recent_job_hours"`
	Old        timing  `json:"job_before_window"`
}

type retain struct {
	Dropped int     `json:"dropped"`
	Seconds float64 `json:"s"`
}

type yearPt struct {
	Partitions int64   `json:"partitions"`
	CreateS    float64 `json:"create_s"`
	JobPage    timing  `json:"job_page"`
	BatchS     float64 `json:"one_batch_write_s"`
	Retention  retain  `json:"retention_empty"`
}

type spoolR struct {
	Bytes   int64   `json:"bytes"`
	Batches int     `json:"batches"`
	Samples int64   `json:"samples"`
	FillS   float64 `json:"fill_s"`
	DrainS  float64 `json:"drain_s"`
	PerS    float64 `json:"drain_samples_per_s"`
}

func emit(r result) {
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
